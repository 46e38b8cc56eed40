#include "attention/safetensors.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <set>
#include <utility>

#include <nlohmann/json.hpp>

namespace attention::safetensors {

namespace {

// The core's one JSON type (a second, ordered one would double nlohmann's share of the
// .wasm): its objects are sorted by key, so tensors sharing an offset (zero-element
// ones) come back in name order.
using Json = nlohmann::json;

constexpr const char* kMetadataKey = "__metadata__";

Error bad(std::string message, std::string field = {}, const char* code = error_code::kBadFile) {
  return Error{std::move(message), code, std::move(field)};
}

std::string in_quotes(const std::string& s) { return "\"" + s + "\""; }

Error bad_tensor(const std::string& name, const std::string& problem,
                 const char* code = error_code::kBadFile) {
  return bad("tensor " + in_quotes(name) + ": " + problem, name, code);
}

std::uint64_t read_le64(const std::uint8_t* p) {
  std::uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

}  // namespace

// Byte by byte, so neither the host's byte order nor the data's alignment matter.
float decode_value(DType dtype, const std::uint8_t* p) {
  if (dtype == DType::F16) return f16_to_f32(static_cast<std::uint16_t>(p[0] | (p[1] << 8)));
  if (dtype == DType::BF16) return bf16_to_f32(static_cast<std::uint16_t>(p[0] | (p[1] << 8)));
  const std::uint32_t bits = std::uint32_t{p[0]} | (std::uint32_t{p[1]} << 8) |
                             (std::uint32_t{p[2]} << 16) | (std::uint32_t{p[3]} << 24);
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

namespace {

// Deepest nesting of [ and { outside strings. nlohmann's parser and destructor are
// iterative in 3.11, but copies and older versions recurse; a valid header needs
// three levels, so anything deeper is refused before the parser sees it.
int nesting_depth(const char* p, const char* end) {
  int depth = 0, deepest = 0;
  bool in_string = false;
  for (; p != end; ++p) {
    if (in_string) {
      if (*p == '\\' && p + 1 != end) ++p;  // an escaped quote does not end the string
      else if (*p == '"') in_string = false;
    } else if (*p == '"') {
      in_string = true;
    } else if (*p == '{' || *p == '[') {
      deepest = std::max(deepest, ++depth);
    } else if ((*p == '}' || *p == ']') && --depth < 0) {
      break;  // unbalanced: the parser rejects it at this point anyway
    }
  }
  return deepest;
}

// nlohmann keeps one value of a repeated key without a word; a parse callback sees
// every key, so the first repeat (at any level) is recorded here.
struct DuplicateKeys {
  std::vector<std::set<std::string>> seen;  // keys of the object open at each depth
  std::vector<std::string> last;            // the latest key at each depth
  bool found = false;
  bool top_level = false;                   // a repeated tensor name, not a key inside an entry
  std::string key, tensor;                  // the repeated key, the top-level entry it is in

  bool on_event(int depth, Json::parse_event_t event, const Json& parsed) {
    const auto at = static_cast<std::size_t>(depth);
    if (event == Json::parse_event_t::object_start) {
      if (seen.size() < at + 2) {
        seen.resize(at + 2);
        last.resize(at + 2);
      }
      seen[at + 1].clear();  // keys of the object just opened arrive at depth + 1
    } else if (event == Json::parse_event_t::key && at < seen.size()) {
      const std::string* k = parsed.get_ptr<const std::string*>();
      if (k == nullptr) return true;
      if (!seen[at].insert(*k).second && !found) {
        found = true;
        top_level = at == 1;
        key = *k;
        tensor = at >= 2 ? last[1] : *k;
      }
      last[at] = *k;
    }
    return true;  // keep everything: the header is checked after parsing
  }
};

// A JSON value that is an integer >= 0 (not 2.0, not "2"); otherwise `problem` says why.
bool non_negative_integer(const Json& v, std::uint64_t& out, std::string& problem) {
  if (v.is_number_unsigned()) {
    out = v.get<std::uint64_t>();
    return true;
  }
  if (v.is_number_integer()) {  // nlohmann stores "-0" as a signed 0
    const std::int64_t i = v.get<std::int64_t>();
    if (i >= 0) {
      out = static_cast<std::uint64_t>(i);
      return true;
    }
    problem = "is negative (" + std::to_string(i) + ")";
  } else {
    problem = v.is_number_float() ? "is not an integer (" + v.dump() + ")" : "is not a number";
  }
  return false;
}

using Entry = TensorInfo;

// Bytes per element of every dtype the safetensors format defines; 0 = not a dtype.
std::size_t element_size(const std::string& dtype) {
  static const std::pair<const char*, std::size_t> sizes[] = {
      {"F64", 8}, {"F32", 4}, {"F16", 2}, {"BF16", 2}, {"I64", 8}, {"I32", 4}, {"I16", 2}, {"I8", 1},
      {"U64", 8}, {"U32", 4}, {"U16", 2}, {"U8", 1}, {"BOOL", 1}, {"F8_E4M3", 1}, {"F8_E5M2", 1}};
  for (const auto& [name, size] : sizes)
    if (dtype == name) return size;
  return 0;
}

// Fills e.dtype_name, e.element_size and, for the dtypes we decode, e.dtype.
Status parse_dtype(const std::string& name, const Json& v, Entry& e, bool any_dtype) {
  if (!v.is_string()) return bad_tensor(name, "dtype must be a string");
  const std::string& s = v.get_ref<const std::string&>();
  e.dtype_name = s;
  e.decodable = true;
  if (s == "F32") e.dtype = DType::F32;
  else if (s == "F16") e.dtype = DType::F16;
  else if (s == "BF16") e.dtype = DType::BF16;
  else e.decodable = false;
  e.element_size = element_size(s);
  if (e.decodable || (any_dtype && e.element_size > 0)) return Ok{};
  const std::string shown = s.size() > 32 ? s.substr(0, 32) + "..." : s;
  return bad_tensor(name, "dtype " + shown + " is not supported (only F32, F16 and BF16 are)",
                    error_code::kUnsupportedDtype);
}

Status parse_shape(const std::string& name, const Json& v, Entry& e) {
  if (!v.is_array()) return bad_tensor(name, "shape must be an array of non-negative integers");
  bool has_zero = false;
  for (std::size_t i = 0; i < v.size(); ++i) {
    std::uint64_t dim = 0;
    std::string problem;
    if (!non_negative_integer(v[i], dim, problem))
      return bad_tensor(name, "shape dimension " + std::to_string(i) + " " + problem);
    if (dim > static_cast<std::uint64_t>(std::numeric_limits<int>::max()))
      return bad_tensor(name, "shape dimension " + std::to_string(i) + " is too large (" +
                                  std::to_string(dim) + ")", error_code::kLimitExceeded);
    e.shape.push_back(static_cast<int>(dim));
    has_zero = has_zero || dim == 0;
  }
  // A zero anywhere makes the tensor empty, however large the other dimensions.
  e.count = 1;
  for (int dim : e.shape) {
    if (has_zero) { e.count = 0; break; }
    const auto d = static_cast<std::uint64_t>(dim);
    if (e.count > std::numeric_limits<std::uint64_t>::max() / e.element_size / d)
      return bad_tensor(name, "the element count of the shape overflows", error_code::kLimitExceeded);
    e.count *= d;
  }
  return Ok{};
}

Status parse_offsets(const std::string& name, const Json& v, Entry& e, std::uint64_t data_size) {
  if (!v.is_array() || v.size() != 2)
    return bad_tensor(name, "data_offsets must be an array of two integers [begin, end]");
  const char* which[] = {"begin", "end"};
  std::uint64_t offsets[2] = {0, 0};
  for (std::size_t i = 0; i < 2; ++i) {
    std::string problem;
    if (!non_negative_integer(v[i], offsets[i], problem))
      return bad_tensor(name, std::string("data_offsets ") + which[i] + " " + problem);
  }
  e.begin = offsets[0];
  e.end = offsets[1];
  if (e.begin > e.end)
    return bad_tensor(name, "data_offsets begin " + std::to_string(e.begin) + " is after end " +
                                std::to_string(e.end));
  const std::uint64_t needed = e.count * e.element_size;  // no overflow: parse_shape checked
  if (e.end - e.begin != needed)
    return bad_tensor(name, "data_offsets span " + std::to_string(e.end - e.begin) + " bytes but " +
                                std::to_string(e.count) + " " + e.dtype_name + " elements need " +
                                std::to_string(needed), error_code::kShapeMismatch);
  if (e.end > data_size)
    return bad_tensor(name, "data_offsets end " + std::to_string(e.end) + " is beyond the data section (" +
                                std::to_string(data_size) + " bytes): truncated file?");
  return Ok{};
}

Result<Entry> parse_entry(const std::string& name, const Json& v, std::uint64_t data_size, bool any_dtype) {
  if (name.empty()) return bad("a tensor has an empty name");
  if (!v.is_object()) return bad_tensor(name, "entry must be an object with dtype, shape and data_offsets");
  for (auto it = v.begin(); it != v.end(); ++it)
    if (it.key() != "dtype" && it.key() != "shape" && it.key() != "data_offsets")
      return bad_tensor(name, "unexpected key " + in_quotes(it.key()) + " in the entry");
  for (const char* key : {"dtype", "shape", "data_offsets"})
    if (!v.contains(key)) return bad_tensor(name, std::string("missing ") + in_quotes(key));
  Entry e;
  e.name = name;
  if (Status s = parse_dtype(name, v["dtype"], e, any_dtype); !s) return s.error_value();
  if (Status s = parse_shape(name, v["shape"], e); !s) return s.error_value();
  if (Status s = parse_offsets(name, v["data_offsets"], e, data_size); !s) return s.error_value();
  return e;
}

Status parse_metadata(const Json& v, std::map<std::string, std::string>& out) {
  if (!v.is_object()) return bad("__metadata__ must be an object of strings", kMetadataKey);
  for (auto it = v.begin(); it != v.end(); ++it) {
    if (!it.value().is_string())
      return bad("__metadata__ value of " + in_quotes(it.key()) + " must be a string", kMetadataKey);
    out[it.key()] = it.value().get_ref<const std::string&>();
  }
  return Ok{};
}

// The safetensors spec: tensors cover the data section exactly, without overlap or gap.
Status check_coverage(const std::vector<Entry>& entries, std::uint64_t data_size) {
  std::uint64_t expected = 0;
  const Entry* previous = nullptr;
  for (const Entry& e : entries) {
    if (e.begin < expected)
      return bad_tensor(e.name, "data overlaps tensor " + in_quotes(previous->name));
    if (e.begin > expected)
      return bad_tensor(e.name, std::to_string(e.begin - expected) +
                                    " bytes before its data belong to no tensor (a gap)");
    expected = e.end;
    previous = &e;
  }
  if (expected != data_size)
    return bad(std::to_string(data_size - expected) +
               " bytes at the end of the data section belong to no tensor");
  return Ok{};
}

}  // namespace

const char* to_string(DType dtype) {
  switch (dtype) {
    case DType::F32: return "F32";
    case DType::F16: return "F16";
    case DType::BF16: return "BF16";
  }
  return "?";
}

std::size_t dtype_size(DType dtype) { return dtype == DType::F32 ? 4 : 2; }

float f16_to_f32(std::uint16_t h) {
  const std::uint32_t sign = std::uint32_t{h & 0x8000u} << 16;
  std::uint32_t exponent = (h >> 10) & 0x1fu;
  std::uint32_t mantissa = h & 0x3ffu;
  std::uint32_t bits;
  if (exponent == 0x1f) {  // inf or NaN (the payload moves along)
    bits = sign | 0x7f800000u | (mantissa << 13);
  } else if (exponent != 0) {  // normal: rebias 15 -> 127
    bits = sign | ((exponent + 112) << 23) | (mantissa << 13);
  } else if (mantissa == 0) {  // ±0
    bits = sign;
  } else {  // subnormal, mantissa * 2^-24: normalise, as float32 has the range
    exponent = 113;  // the exponent field of 2^-14, the smallest normal half
    while ((mantissa & 0x400u) == 0) {
      mantissa <<= 1;
      --exponent;
    }
    bits = sign | (exponent << 23) | ((mantissa & 0x3ffu) << 13);
  }
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

float bf16_to_f32(std::uint16_t h) {
  const std::uint32_t bits = std::uint32_t{h} << 16;
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

const Tensor* File::find(const std::string& name) const {
  for (const Tensor& t : tensors)
    if (t.name == name) return &t;
  return nullptr;
}

Result<Index> read_index(const std::uint8_t* data, std::size_t size, bool any_dtype) {
  if (size < 8)
    return bad("file too short: " + std::to_string(size) + " bytes, a safetensors file has at least 8");
  const std::uint64_t header_size = read_le64(data);
  if (header_size > kMaxHeaderBytes)
    return bad("header length " + std::to_string(header_size) + " exceeds the limit of " +
               std::to_string(kMaxHeaderBytes) + " bytes", {}, error_code::kLimitExceeded);
  if (header_size > size - 8)
    return bad("header length " + std::to_string(header_size) + " is beyond the end of the file (" +
               std::to_string(size - 8) + " bytes follow it): truncated file?");
  const char* begin = reinterpret_cast<const char*>(data + 8);
  const char* end = begin + header_size;
  while (end != begin && end[-1] == ' ') --end;  // the spec's padding: spaces only
  if (end == begin || *begin != '{' || end[-1] != '}')
    return bad("the header must be a JSON object, optionally followed by spaces");
  if (nesting_depth(begin, end) > kMaxHeaderDepth)
    return bad("the header is nested deeper than " + std::to_string(kMaxHeaderDepth) + " levels");

  DuplicateKeys duplicates;
  const Json header = Json::parse(
      begin, end,
      [&duplicates](int depth, Json::parse_event_t event, Json& parsed) {
        return duplicates.on_event(depth, event, parsed);
      },
      /*allow_exceptions=*/false);
  if (header.is_discarded()) return bad("the header is not valid JSON");
  if (!header.is_object()) return bad("the header must be a JSON object");
  if (duplicates.found) {
    if (duplicates.top_level)
      return bad(duplicates.key == kMetadataKey ? "the header has __metadata__ twice"
                                                : "the header names tensor " + in_quotes(duplicates.key) + " twice",
                 duplicates.key);
    return bad(in_quotes(duplicates.tensor) + ": duplicate key " + in_quotes(duplicates.key), duplicates.tensor);
  }

  Index index;
  index.data_offset = 8 + header_size;
  const std::uint64_t section_size = size - 8 - header_size;
  std::vector<Entry>& entries = index.tensors;
  for (auto it = header.begin(); it != header.end(); ++it) {
    if (it.key() == kMetadataKey) {
      if (Status s = parse_metadata(it.value(), index.metadata); !s) return s.error_value();
      continue;
    }
    Result<Entry> e = parse_entry(it.key(), it.value(), section_size, any_dtype);
    if (!e) return e.error_value();
    entries.push_back(std::move(e).value());
  }
  std::stable_sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
    return a.begin != b.begin ? a.begin < b.begin : a.end < b.end;
  });
  if (Status s = check_coverage(entries, section_size); !s) return s.error_value();
  return index;
}

const TensorInfo* Index::find(const std::string& name) const {
  for (const TensorInfo& t : tensors)
    if (t.name == name) return &t;
  return nullptr;
}

Status decode(const TensorInfo& t, const std::uint8_t* data_section, float* out) {
  if (!t.decodable)
    return bad_tensor(t.name, "dtype " + t.dtype_name + " is not supported (only F32, F16 and BF16 are)",
                      error_code::kUnsupportedDtype);
  const std::size_t step = t.element_size;
  const std::uint8_t* p = data_section + t.begin;
  const std::uint32_t probe = 1;
  const bool little_endian = *reinterpret_cast<const std::uint8_t*>(&probe) == 1;
  if (t.dtype == DType::F32 && little_endian) {  // the stored bytes are the floats: copy, then check
    if (t.count > 0) std::memcpy(out, p, static_cast<std::size_t>(t.count) * sizeof(float));  // out may be null when empty
  } else {
    for (std::uint64_t i = 0; i < t.count; ++i, p += step) out[i] = safetensors::decode_value(t.dtype, p);
  }
  for (std::uint64_t i = 0; i < t.count; ++i) {
    if (!std::isfinite(out[i])) {
      const char* what = std::isnan(out[i]) ? "NaN" : out[i] > 0 ? "+Infinity" : "-Infinity";
      return bad_tensor(t.name, "element " + std::to_string(i) + " is " + what, error_code::kNonFinite);
    }
  }
  return Ok{};
}

Result<File> read(const std::uint8_t* data, std::size_t size) {
  Result<Index> index = read_index(data, size);
  if (!index) return index.error_value();
  File file;
  file.metadata = std::move(index.value().metadata);
  // Only now, with every size checked against the file, is memory for values allocated:
  // at most twice the data section (F16 and BF16 widen 2 bytes to 4).
  for (const TensorInfo& t : index.value().tensors) {
    Tensor tensor{t.name, t.dtype, t.shape, std::vector<float>(static_cast<std::size_t>(t.count))};
    if (Status s = decode(t, data + index.value().data_offset, tensor.values.data()); !s) return s.error_value();
    file.tensors.push_back(std::move(tensor));
  }
  return file;
}

std::vector<std::uint8_t> write(const std::vector<TensorRef>& tensors,
                                const std::map<std::string, std::string>& metadata) {
  // Strings go through nlohmann for escaping; `replace` turns invalid UTF-8 into
  // U+FFFD instead of throwing.
  const auto json_string = [](const std::string& s) {
    return Json(s).dump(-1, ' ', false, Json::error_handler_t::replace);
  };
  std::string header = "{";
  if (!metadata.empty()) {  // first, as the reference implementation writes it
    header += in_quotes(kMetadataKey) + ":{";
    for (const auto& [key, value] : metadata) {
      if (header.back() != '{') header += ',';
      header += json_string(key) + ":" + json_string(value);
    }
    header += "}";
  }
  std::vector<std::size_t> counts;
  std::uint64_t offset = 0;
  for (const TensorRef& t : tensors) {
    std::size_t count = 1;
    std::string shape;
    for (int dim : t.shape) {
      count *= dim < 0 ? 0 : static_cast<std::size_t>(dim);
      shape += (shape.empty() ? "" : ",") + std::to_string(dim);
    }
    counts.push_back(count);
    if (header.size() > 1) header += ',';
    header += json_string(t.name) + ":{\"dtype\":\"F32\",\"shape\":[" + shape + "],\"data_offsets\":[" +
              std::to_string(offset) + "," + std::to_string(offset + count * 4) + "]}";
    offset += count * 4;
  }
  header += "}";
  header.append((8 - header.size() % 8) % 8, ' ');  // the data starts 8-byte aligned

  std::vector<std::uint8_t> out(8 + header.size() + offset);
  for (int i = 0; i < 8; ++i) out[i] = static_cast<std::uint8_t>(std::uint64_t{header.size()} >> (8 * i));
  std::memcpy(out.data() + 8, header.data(), header.size());
  std::uint8_t* p = out.data() + 8 + header.size();
  for (std::size_t t = 0; t < tensors.size(); ++t)
    for (std::size_t i = 0; i < counts[t]; ++i) {
      std::uint32_t bits;
      std::memcpy(&bits, tensors[t].data + i, sizeof bits);
      for (int b = 0; b < 4; ++b) *p++ = static_cast<std::uint8_t>(bits >> (8 * b));  // little-endian
    }
  return out;
}

}  // namespace attention::safetensors
