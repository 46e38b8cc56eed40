// Reading a safetensors file's header: the length prefix, the JSON (bounded in depth, no
// repeated keys), each tensor's dtype, shape and offsets, and that the tensors cover the
// data section exactly. Nothing is decoded here (safetensors.cpp does that).
#include <algorithm>
#include <cstdint>
#include <limits>
#include <set>
#include <utility>

#include "safetensors_shared.hpp"

namespace attention::safetensors {

using namespace detail;

namespace {

std::uint64_t read_le64(const std::uint8_t* p) {
  std::uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

// Deepest nesting of [ and { outside strings. nlohmann's parser and destructor are
// iterative in 3.11, but copies and older versions recurse; a valid header needs
// three levels, so anything deeper is refused before the parser sees it.
int nesting_depth(const char* p, const char* end) {
  int depth = 0, deepest = 0;
  bool in_string = false;
  for (; p != end; ++p) {
    if (in_string) {
      if (*p == '\\' && p + 1 != end)
        ++p;  // an escaped quote does not end the string
      else if (*p == '"')
        in_string = false;
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
  bool top_level = false;   // a repeated tensor name, not a key inside an entry
  std::string key, tensor;  // the repeated key, the top-level entry it is in

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
      {"F64", 8}, {"F32", 4}, {"F16", 2}, {"BF16", 2}, {"I64", 8},  {"I32", 4},     {"I16", 2},    {"I8", 1},
      {"U64", 8}, {"U32", 4}, {"U16", 2}, {"U8", 1},   {"BOOL", 1}, {"F8_E4M3", 1}, {"F8_E5M2", 1}};
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
  if (s == "F32")
    e.dtype = DType::F32;
  else if (s == "F16")
    e.dtype = DType::F16;
  else if (s == "BF16")
    e.dtype = DType::BF16;
  else
    e.decodable = false;
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
      return bad_tensor(name, "shape dimension " + std::to_string(i) + " is too large (" + std::to_string(dim) + ")",
                        error_code::kLimitExceeded);
    e.shape.push_back(static_cast<int>(dim));
    has_zero = has_zero || dim == 0;
  }
  // A zero anywhere makes the tensor empty, however large the other dimensions.
  e.count = 1;
  for (int dim : e.shape) {
    if (has_zero) {
      e.count = 0;
      break;
    }
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
    return bad_tensor(name, "data_offsets begin " + std::to_string(e.begin) + " is after end " + std::to_string(e.end));
  const std::uint64_t needed = e.count * e.element_size;  // no overflow: parse_shape checked
  if (e.end - e.begin != needed)
    return bad_tensor(name,
                      "data_offsets span " + std::to_string(e.end - e.begin) + " bytes but " + std::to_string(e.count) +
                          " " + e.dtype_name + " elements need " + std::to_string(needed),
                      error_code::kShapeMismatch);
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
    if (e.begin < expected) return bad_tensor(e.name, "data overlaps tensor " + in_quotes(previous->name));
    if (e.begin > expected)
      return bad_tensor(e.name,
                        std::to_string(e.begin - expected) + " bytes before its data belong to no tensor (a gap)");
    expected = e.end;
    previous = &e;
  }
  if (expected != data_size)
    return bad(std::to_string(data_size - expected) + " bytes at the end of the data section belong to no tensor");
  return Ok{};
}

}  // namespace

Result<Index> read_index(const std::uint8_t* data, std::size_t size, bool any_dtype) {
  if (size < 8) return bad("file too short: " + std::to_string(size) + " bytes, a safetensors file has at least 8");
  const std::uint64_t header_size = read_le64(data);
  if (header_size > kMaxHeaderBytes)
    return bad("header length " + std::to_string(header_size) + " exceeds the limit of " +
                   std::to_string(kMaxHeaderBytes) + " bytes",
               {}, error_code::kLimitExceeded);
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

}  // namespace attention::safetensors
