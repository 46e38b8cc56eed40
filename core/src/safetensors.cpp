// Safetensors values: the dtypes' conversions to float, decoding a tensor (refusing NaN and
// infinities), reading a whole file and writing one. The header is read in safetensors_header.cpp.
#include <cmath>
#include <cstring>
#include <utility>

#include "safetensors_shared.hpp"

namespace attention::safetensors {

using namespace detail;

// Byte by byte, so neither the host's byte order nor the data's alignment matter.
float decode_value(DType dtype, const std::uint8_t* p) {
  if (dtype == DType::F16) return f16_to_f32(static_cast<std::uint16_t>(p[0] | (p[1] << 8)));
  if (dtype == DType::BF16) return bf16_to_f32(static_cast<std::uint16_t>(p[0] | (p[1] << 8)));
  const std::uint32_t bits =
      std::uint32_t{p[0]} | (std::uint32_t{p[1]} << 8) | (std::uint32_t{p[2]} << 16) | (std::uint32_t{p[3]} << 24);
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

const char* to_string(DType dtype) {
  switch (dtype) {
    case DType::F32:
      return "F32";
    case DType::F16:
      return "F16";
    case DType::BF16:
      return "BF16";
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
  } else {           // subnormal, mantissa * 2^-24: normalise, as float32 has the range
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

Status decode(const TensorInfo& t, const std::uint8_t* data_section, float* out) {
  if (!t.decodable)
    return bad_tensor(t.name, "dtype " + t.dtype_name + " is not supported (only F32, F16 and BF16 are)",
                      error_code::kUnsupportedDtype);
  const std::size_t step = t.element_size;
  const std::uint8_t* p = data_section + t.begin;
  const std::uint32_t probe = 1;
  const bool little_endian = *reinterpret_cast<const std::uint8_t*>(&probe) == 1;
  if (t.dtype == DType::F32 && little_endian) {  // the stored bytes are the floats: copy, then check
    if (t.count > 0)
      std::memcpy(out, p, static_cast<std::size_t>(t.count) * sizeof(float));  // out may be null when empty
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
