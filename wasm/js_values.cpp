#include "js_values.hpp"

#include <emscripten/bind.h>

#include "attention/trace_json.hpp"

namespace attention::js {

val error(const Error& e) {
  val detail = val::object();
  detail.set("message", e.message);
  detail.set("code", e.code);
  detail.set("field", e.field);
  val result = val::object();
  result.set("error", detail);
  return result;
}

bool read_floats(const val& array, const char* name, std::size_t expected, std::vector<float>& out, val& failure) {
  const std::size_t length = array["length"].as<std::size_t>();
  if (length != expected) {
    failure =
        error(std::string(name) + " has " + std::to_string(length) + " elements, expected " + std::to_string(expected),
              error_code::kShapeMismatch, name);
    return false;
  }
  out = emscripten::convertJSArrayToNumberVector<float>(array);
  return true;
}

HeapBytes read_bytes(const val& array) {
  HeapBytes bytes;
  bytes.size = array["length"].as<std::size_t>();
  bytes.data.reset(new std::uint8_t[bytes.size > 0 ? bytes.size : 1]);
  val(emscripten::typed_memory_view(bytes.size, bytes.data.get())).call<void>("set", array);
  return bytes;
}

std::vector<int> read_ints(const val& array) { return emscripten::convertJSArrayToNumberVector<int>(array); }

val trace_to_js(const Trace& trace) {
  std::size_t total = 0;
  for (const Stage& stage : trace.stages) total += stage.tensor.size();
  val data = val::global("Float32Array").new_(total);
  std::size_t offset = 0;
  for (const Stage& stage : trace.stages) {
    data.call<void>("set", val(emscripten::typed_memory_view(stage.tensor.size(), stage.tensor.ptr())), offset);
    offset += stage.tensor.size();
  }
  val result = val::object();
  result.set("meta", dump_json(trace_json(trace, false)));
  result.set("data", data);
  return result;
}

}  // namespace attention::js
