#include "attention/settings.hpp"

#include <cstdio>

namespace attention::settings_detail {

std::string number_text(double v) {
  if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 1e15) return std::to_string(static_cast<long long>(v));
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%g", v);
  return buffer;
}

namespace {

// "{heads} must divide {dModel}" with the settings' values.
std::string fill(const std::string& message, const Json& values) {
  std::string out;
  for (std::size_t i = 0; i < message.size(); ++i) {
    const std::size_t close = message[i] == '{' ? message.find('}', i) : std::string::npos;
    if (close == std::string::npos) {
      out += message[i];
      continue;
    }
    const std::string name = message.substr(i + 1, close - i - 1);
    const auto found = values.find(name);
    out += found == values.end() ? "{" + name + "}" : describe_json_value(*found);
    i = close;
  }
  return out;
}

}  // namespace

std::string describe_json_value(const Json& value) {
  if (value.is_number()) return number_text(value.get<double>());
  if (value.is_string()) {
    const std::string s = value.get<std::string>();
    return "'" + (s.size() > 40 ? s.substr(0, 40) + "..." : s) + "'";
  }
  if (value.is_boolean()) return value.get<bool>() ? "true" : "false";
  if (value.is_null()) return "null";
  if (value.is_array()) return "an array";
  return "an object";
}

Status check_value(const SettingInfo& info, const Json& value) {
  const auto bad = [&](const std::string& what, const char* code) -> Status {
    return Error{info.name + " " + what + ", got " + describe_json_value(value), code, info.name};
  };
  if (info.type == "bool")
    return value.is_boolean() ? Status(Ok{}) : bad("must be true or false", error_code::kInvalidArgument);
  if (info.type == "text") {
    if (!value.is_string()) return bad("must be a string", error_code::kInvalidArgument);
    if (value.get_ref<const std::string&>().size() > info.max)
      return Error{info.name + " is " + std::to_string(value.get_ref<const std::string&>().size()) +
                       " bytes long; the limit is " + number_text(info.max),
                   error_code::kLimitExceeded, info.name};
    return Ok{};
  }
  if (info.type == "choice") {
    std::string list;
    for (const std::string& c : info.choices) list += (list.empty() ? "'" : ", '") + c + "'";
    if (!value.is_string()) return bad("must be one of " + list, error_code::kInvalidArgument);
    for (const std::string& c : info.choices)
      if (c == value.get<std::string>()) return Ok{};
    return bad("must be one of " + list, error_code::kInvalidArgument);
  }
  if (!value.is_number())
    return bad(info.type == "int" ? "must be a whole number" : "must be a number", error_code::kInvalidArgument);
  const double v = value.get<double>();
  if (!std::isfinite(v)) return bad("must be a finite number", error_code::kInvalidArgument);
  if (info.type == "int" && v != std::floor(v)) return bad("must be a whole number", error_code::kInvalidArgument);
  const bool below = info.min_exclusive ? v <= info.min : v < info.min;
  if (below || v > info.max) {
    if (info.min_exclusive)
      return bad("must be greater than " + number_text(info.min) + " and at most " + number_text(info.max),
                 error_code::kOutOfRange);
    return bad("must be between " + number_text(info.min) + " and " + number_text(info.max), error_code::kOutOfRange);
  }
  return Ok{};
}

Status check_rules(const std::vector<Rule>& rules, const Json& values) {
  for (const Rule& r : rules) {
    if (!r.when.empty() && values[r.when] != r.is) continue;
    const double a = values[r.a].get<double>();
    bool ok = true;
    if (r.kind == "divides") {
      const double b = values[r.b].get<double>();
      ok = a == 0 || std::fmod(b, a) == 0;
    } else {  // atLeast
      const double v = r.b.empty() ? a : a / values[r.b].get<double>();
      ok = v >= r.bound;
    }
    if (!ok) return Error{fill(r.message, values), r.code, r.field};
  }
  return Ok{};
}

Json describe(const std::vector<SettingInfo>& infos, const Json& defaults, const std::vector<Rule>& rules) {
  Json settings = Json::array();
  for (const SettingInfo& info : infos) {
    Json s = {{"name", info.name}, {"type", info.type}, {"default", defaults[info.name]}, {"help", info.help}};
    if (info.type == "int" || info.type == "number" || info.type == "text") {
      s["min"] = info.min;
      s["max"] = info.max;
      if (info.min_exclusive) s["minExclusive"] = true;
    }
    if (info.type == "choice") s["choices"] = info.choices;
    settings.push_back(s);
  }
  Json rule_list = Json::array();
  for (const Rule& r : rules) {
    Json j = {{"kind", r.kind}, {"field", r.field}, {"a", r.a}, {"code", r.code}, {"message", r.message}};
    if (!r.b.empty()) j["b"] = r.b;
    if (r.kind == "atLeast") j["bound"] = r.bound;
    if (!r.when.empty()) j["when"] = {{r.when, r.is}};
    rule_list.push_back(j);
  }
  return {{"settings", settings}, {"rules", rule_list}};
}

}  // namespace attention::settings_detail
