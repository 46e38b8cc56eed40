#pragma once
// Typed reads of config.json keys (private to core/src/pretrained): a key that is absent
// takes the configuration class's default; a present key of the wrong type is an Error
// naming it (with `prefix`, e.g. "text_config.", in front when it sits in a sub-object).
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "attention/layers.hpp"
#include "attention/result.hpp"

namespace attention::pretrained::config_values {

using Json = nlohmann::json;

inline Error config_error(const std::string& key, const std::string& problem, const char* code = error_code::kBadFile) {
  return Error{"config.json: " + key + " " + problem, code, key};
}

// A whole number key (absent = fallback; null = fallback when null_ok).
inline Result<int> integer(const Json& j, const std::string& key, int fallback, bool null_ok = false,
                           const std::string& prefix = "") {
  if (!j.contains(key) || (null_ok && j[key].is_null())) return fallback;
  const Json& v = j[key];
  if (v.is_number_integer()) {
    const auto i = v.get<std::int64_t>();
    if (i < -1 || i > 1'000'000'000)
      return config_error(prefix + key, "is " + v.dump() + ", out of range", error_code::kOutOfRange);
    return static_cast<int>(i);
  }
  return config_error(prefix + key, "must be a whole number, got " + v.dump());
}

inline Result<double> number(const Json& j, const std::string& key, double fallback, const std::string& prefix = "") {
  if (!j.contains(key)) return fallback;
  const Json& v = j[key];
  if (!v.is_number()) return config_error(prefix + key, "must be a number, got " + v.dump());
  return v.get<double>();
}

inline Result<bool> boolean(const Json& j, const std::string& key, bool fallback, const std::string& prefix = "") {
  if (!j.contains(key)) return fallback;
  if (!j[key].is_boolean()) return config_error(prefix + key, "must be true or false, got " + j[key].dump());
  return j[key].get<bool>();
}

inline Result<std::string> text(const Json& j, const std::string& key, const std::string& fallback,
                                const std::string& prefix = "") {
  if (!j.contains(key)) return fallback;
  if (!j[key].is_string()) return config_error(prefix + key, "must be a string, got " + j[key].dump());
  return j[key].get<std::string>();
}

// The activations of transformers' ACT2FN the engine computes exactly as PyTorch does.
inline Result<Activation> activation(const std::string& key, const std::string& name) {
  if (name == "gelu") return Activation::GELU;
  if (name == "gelu_new" || name == "gelu_pytorch_tanh" || name == "gelu_fast") return Activation::GELUTanh;
  if (name == "relu") return Activation::ReLU;
  if (name == "silu" || name == "swish") return Activation::SiLU;
  return config_error(key,
                      "is \"" + name + "\"; the engine runs gelu, gelu_new / gelu_pytorch_tanh (tanh), relu and silu",
                      error_code::kInvalidArgument);
}

// Runs the steps in order and stops at the first error.
#define ATTENTION_TRY_ASSIGN(target, expression) \
  do {                                           \
    auto result_ = (expression);                 \
    if (!result_) return result_.error_value();  \
    target = std::move(result_).value();         \
  } while (0)

}  // namespace attention::pretrained::config_values
