#pragma once
// Settings declared once. A Schema<T> lists each setting of a struct T (its name as
// the JavaScript API spells it, type, range or choices, help text, and the member it
// binds to; the default is the struct's own default member initializer) and each
// rule between settings. From it derive: reading a JSON object into a T with every
// check (bindings, command line), the checks of a T built in C++ (validate), the
// equality of two Ts, and the schema as JSON, which the TypeScript side turns into
// its types, its validation and the playground's settings table.
//
// Rules are data, so TypeScript evaluates the same ones:
//   divides:  setting `a` divides setting `b`                   (b % a == 0; a = 0 passes:
//             a setting that may be 0 means "the default" by it, e.g. kvHeads 0 = heads)
//   atLeast:  setting `a` (or a / b when `b` is set) >= bound
// each optionally only when setting `when` has the value `is`; `message` names
// settings in braces ("{heads}"), replaced by their values.
#include <cmath>
#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "attention/result.hpp"

namespace attention {

using Json = nlohmann::json;

struct SettingInfo {
  std::string name;
  std::string type;                  // "int", "number", "bool", "choice" or "text"
  double min = 0, max = 0;           // int and number: inclusive range; text: max bytes
  bool min_exclusive = false;        // number: min itself is not allowed (e.g. eps > 0)
  std::vector<std::string> choices;  // choice
  std::string help;
};

struct Rule {
  std::string kind;   // "divides" or "atLeast"
  std::string field;  // the setting the message is shown at
  std::string a, b;
  double bound = 0;
  std::string when;
  Json is;  // the value of `when` under which the rule applies (a string, number or bool)
  std::string code;
  std::string message;
};

template <class T>
struct Field {
  SettingInfo info;
  std::function<Json(const T&)> get;
  std::function<void(T&, const Json&)> set;  // the value has passed check_value
};

template <class T>
struct Schema {
  std::vector<Field<T>> fields;
  std::vector<Rule> rules;
};

template <class T>
Field<T> int_field(const char* name, int T::*member, int min, int max, const char* help) {
  return {{name, "int", double(min), double(max), false, {}, help},
          [member](const T& t) { return Json(t.*member); },
          [member](T& t, const Json& v) { t.*member = static_cast<int>(v.get<double>()); }};
}

template <class T>
Field<T> uint_field(const char* name, std::uint32_t T::*member, const char* help) {
  return {{name, "int", 0.0, 4294967295.0, false, {}, help},
          [member](const T& t) { return Json(t.*member); },
          [member](T& t, const Json& v) { t.*member = static_cast<std::uint32_t>(v.get<double>()); }};
}

template <class T>
Field<T> number_field(const char* name, double T::*member, double min, bool min_exclusive, double max,
                      const char* help) {
  return {{name, "number", min, max, min_exclusive, {}, help},
          [member](const T& t) { return Json(t.*member); },
          [member](T& t, const Json& v) { t.*member = v.get<double>(); }};
}

template <class T>
Field<T> bool_field(const char* name, bool T::*member, const char* help) {
  return {{name, "bool", 0, 0, false, {}, help},
          [member](const T& t) { return Json(t.*member); },
          [member](T& t, const Json& v) { t.*member = v.get<bool>(); }};
}

template <class T, class E>
Field<T> choice_field(const char* name, E T::*member, std::vector<std::pair<std::string, E>> choices,
                      const char* help) {
  SettingInfo info{name, "choice", 0, 0, false, {}, help};
  for (const auto& c : choices) info.choices.push_back(c.first);
  return {info,
          [member, choices](const T& t) {
            for (const auto& c : choices)
              if (c.second == t.*member) return Json(c.first);
            return Json(nullptr);
          },
          [member, choices](T& t, const Json& v) {
            for (const auto& c : choices)
              if (c.first == v.get<std::string>()) t.*member = c.second;
          }};
}

// The generic parts, shared by every schema (settings.cpp).
namespace settings_detail {
Status check_value(const SettingInfo& info, const Json& value);
Status check_rules(const std::vector<Rule>& rules, const Json& values);
Json describe(const std::vector<SettingInfo>& infos, const Json& defaults, const std::vector<Rule>& rules);
// A number as the messages print it (no trailing zeros).
std::string number_text(double v);
std::string describe_json_value(const Json& value);
}  // namespace settings_detail

template <class T>
Json to_json(const Schema<T>& schema, const T& value) {
  Json out = Json::object();
  for (const Field<T>& f : schema.fields) out[f.info.name] = f.get(value);
  return out;
}

// Ranges, choices and rules of a T built in C++.
template <class T>
Status check(const Schema<T>& schema, const T& value) {
  const Json values = to_json(schema, value);
  for (const Field<T>& f : schema.fields)
    if (Status s = settings_detail::check_value(f.info, values[f.info.name]); !s) return s;
  return settings_detail::check_rules(schema.rules, values);
}

// A JSON object of settings over `base` (missing settings keep base's values): unknown
// names, wrong types, values out of range and broken rules are Errors naming the setting.
template <class T>
Result<T> from_json(const Schema<T>& schema, const Json& object, T base = T{}) {
  if (!object.is_object())
    return Error{"settings must be an object, got " + settings_detail::describe_json_value(object),
                 error_code::kInvalidArgument, ""};
  for (const auto& item : object.items()) {
    bool known = false;
    for (const Field<T>& f : schema.fields) known = known || f.info.name == item.key();
    if (!known) return Error{"unknown setting '" + item.key() + "'", error_code::kInvalidArgument, item.key()};
  }
  for (const Field<T>& f : schema.fields) {
    const auto found = object.find(f.info.name);
    if (found == object.end()) continue;
    if (Status s = settings_detail::check_value(f.info, *found); !s) return s.error_value();
    f.set(base, *found);
  }
  if (Status s = settings_detail::check_rules(schema.rules, to_json(schema, base)); !s) return s.error_value();
  return base;
}

// The schema as JSON: {"settings": [{name, type, default, min, max, minExclusive,
// choices, help}], "rules": [...]}.
template <class T>
Json describe(const Schema<T>& schema) {
  std::vector<SettingInfo> infos;
  for (const Field<T>& f : schema.fields) infos.push_back(f.info);
  return settings_detail::describe(infos, to_json(schema, T{}), schema.rules);
}

template <class T>
bool same_settings(const Schema<T>& schema, const T& a, const T& b) {
  return to_json(schema, a) == to_json(schema, b);
}

}  // namespace attention
