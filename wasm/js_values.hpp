#pragma once
// Copies between JS values and core types, for the bindings. No math here.
#include <emscripten/val.h>

#include <memory>
#include <string>
#include <vector>

#include "attention/result.hpp"
#include "attention/trace.hpp"

namespace attention::js {

using emscripten::val;

// { error: { message, code, field } }: the TypeScript side throws an AttentionError from it.
val error(const Error& e);
inline val error(const std::string& message, const char* code = error_code::kInvalidArgument,
                 const std::string& field = "") {
  return error(Error{message, code, field});
}

// A copy of the values as a JS typed array of their type (Float32Array for float, Int32Array for
// int, Float64Array for double, Uint8Array for bytes) the caller owns, made in one call (a view's
// slice; no view into the heap, which would go stale when memory grows).
template <class T>
val to_typed_array(const T* data, std::size_t n) {
  return val(emscripten::typed_memory_view(n, data)).template call<val>("slice");
}
template <class T>
val to_typed_array(const std::vector<T>& v) {
  return to_typed_array(v.data(), v.size());
}
inline val to_float32_array(const float* data, std::size_t n) { return to_typed_array(data, n); }
inline val to_float32_array(const std::vector<float>& v) { return to_typed_array(v); }
inline val to_uint8_array(const std::vector<std::uint8_t>& bytes) { return to_typed_array(bytes); }

// A typed array (or array) of numbers with exactly `expected` elements, else false and
// an error naming `name` (the API's spelling).
bool read_floats(const val& array, const char* name, std::size_t expected, std::vector<float>& out, val& failure);
// A byte array's contents copied into the heap in one typed-array set, with no zero-fill
// first (checkpoints run to hundreds of MB; a std::vector would write every byte twice).
struct HeapBytes {
  std::unique_ptr<std::uint8_t[]> data;
  std::size_t size = 0;
};
HeapBytes read_bytes(const val& array);
std::vector<int> read_ints(const val& array);

// A trace as { meta: JSON text, data: Float32Array }: every stage's values copied once,
// straight from the core's tensors into one JS array, and one JSON description
// (trace_json.hpp) with each stage's offset into it.
val trace_to_js(const Trace& trace);

}  // namespace attention::js
