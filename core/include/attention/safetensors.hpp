#pragma once
// safetensors files (https://github.com/huggingface/safetensors): a strict reader
// that decodes F32, F16 and BF16 tensors to float32, and a writer of F32 tensors.
//
// Layout: an 8-byte little-endian header length N, N bytes of UTF-8 JSON (an
// object: tensor name -> {"dtype", "shape", "data_offsets": [begin, end]}, plus an
// optional "__metadata__" object of strings), then the data section; offsets are
// relative to its start and the tensors must cover it exactly.
//
// The reader treats its input as hostile (weights come from users' files): every
// problem is an Error (code from attention::error_code, the tensor's name in
// `field`), never a crash, an exception, an out-of-bounds read or an allocation
// larger than about twice the file.
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "attention/result.hpp"

namespace attention::safetensors {

// The header may not be longer than this (the reference implementation's limit):
// a length field above it is garbage or an attack, not a model.
inline constexpr std::uint64_t kMaxHeaderBytes = 100'000'000;
// A valid header nests three levels (object, tensor entry, shape array); one more
// is allowed so that a misplaced array gets a precise message. Deeper headers are
// refused before parsing, since the JSON parser's DOM is built recursively.
inline constexpr int kMaxHeaderDepth = 4;

enum class DType { F32, F16, BF16 };
const char* to_string(DType);
std::size_t dtype_size(DType);  // bytes per element

struct Tensor {  // one tensor of a file, decoded to float32
  std::string name;
  DType dtype;  // as stored in the file
  std::vector<int> shape;
  std::vector<float> values;  // row-major, element_count(shape) values
};

struct File {
  std::vector<Tensor> tensors;                        // in the order of their data_offsets
  std::map<std::string, std::string> metadata;        // "__metadata__", if any
  const Tensor* find(const std::string& name) const;  // or nullptr
};

// Parses and checks a whole file (bytes), decoding every tensor to float32.
Result<File> read(const std::uint8_t* data, std::size_t size);

// One tensor of a checked header, not yet decoded.
struct TensorInfo {
  std::string name;
  std::string dtype_name;  // as written: "F32", "U8", "I64", ...
  bool decodable = false;  // F32, F16 or BF16: `dtype` is set
  DType dtype = DType::F32;
  std::size_t element_size = 0;  // bytes per element
  std::vector<int> shape;
  std::uint64_t begin = 0, end = 0, count = 0;  // byte offsets in the data section; elements
};

// A file's checked header: the same checks as read() (coverage, sizes, names, JSON),
// without decoding or allocating values, so a loader can decode tensor by tensor
// straight into its own buffers. With any_dtype, tensors of the format's other dtypes
// (U8, I64, BOOL, F64, ...) are listed (decodable false) instead of refused, for
// loaders that skip known buffers such as GPT-2's causal-mask tables.
struct Index {
  std::vector<TensorInfo> tensors;  // in the order of their data_offsets
  std::map<std::string, std::string> metadata;
  std::uint64_t data_offset = 0;                          // where the data section starts in the file
  const TensorInfo* find(const std::string& name) const;  // or nullptr
};
Result<Index> read_index(const std::uint8_t* data, std::size_t size, bool any_dtype = false);

// Decodes one tensor of an Index to float32: out holds t.count floats; data_section is
// the file's bytes from Index::data_offset on. An Error for a dtype we do not decode or
// a value that is not finite (out is then partly written).
Status decode(const TensorInfo& t, const std::uint8_t* data_section, float* out);

// One stored value of a decodable dtype, little-endian, at any alignment.
float decode_value(DType dtype, const std::uint8_t* p);

struct TensorRef {
  std::string name;
  std::vector<int> shape;
  const float* data;  // product(shape) values; may be null when that is 0
};

// Writes F32 tensors in the given order (data laid out back to back in that order, no gaps),
// header keys in the same order, optional __metadata__ (string -> string).
// The header is padded with spaces to a multiple of 8 bytes, so the data is aligned.
// Writing cannot fail; the caller provides unique, non-empty, valid UTF-8 names,
// non-negative dimensions and finite values. Anything else still produces bytes,
// which read() then rejects.
std::vector<std::uint8_t> write(const std::vector<TensorRef>& tensors,
                                const std::map<std::string, std::string>& metadata = {});

// Exact conversions of one stored 16-bit value (exposed for the tests).
float f16_to_f32(std::uint16_t bits);   // IEEE half: subnormals, ±0, ±inf and NaN kept
float bf16_to_f32(std::uint16_t bits);  // bfloat16: the upper half of a float32

}  // namespace attention::safetensors
