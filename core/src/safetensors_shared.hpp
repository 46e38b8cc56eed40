#pragma once
// What the safetensors reader (safetensors_header.cpp) and the value code (safetensors.cpp)
// share: the JSON type, the metadata key and the shape of their error messages. Private to core/src.
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

#include "attention/safetensors.hpp"

namespace attention::safetensors::detail {

// The core's one JSON type (a second, ordered one would double nlohmann's share of the
// .wasm): its objects are sorted by key, so tensors sharing an offset (zero-element
// ones) come back in name order.
using Json = nlohmann::json;

inline constexpr const char* kMetadataKey = "__metadata__";

inline Error bad(std::string message, std::string field = {}, const char* code = error_code::kBadFile) {
  return Error{std::move(message), code, std::move(field)};
}

inline std::string in_quotes(const std::string& s) { return "\"" + s + "\""; }

inline Error bad_tensor(const std::string& name, const std::string& problem, const char* code = error_code::kBadFile) {
  return bad("tensor " + in_quotes(name) + ": " + problem, name, code);
}

}  // namespace attention::safetensors::detail
