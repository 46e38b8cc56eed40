#include "untrusted_json.hpp"

#include <algorithm>

namespace attention {

namespace {

// Deepest nesting of [ and { outside strings.
int nesting_depth(std::string_view text) {
  int depth = 0, deepest = 0;
  bool in_string = false, escaped = false;
  for (char c : text) {
    if (in_string) {
      if (escaped)
        escaped = false;
      else if (c == '\\')
        escaped = true;
      else if (c == '"')
        in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      deepest = std::max(deepest, ++depth);
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return deepest;
}

}  // namespace

Result<nlohmann::json> parse_untrusted_json(std::string_view text, const std::string& file) {
  if (nesting_depth(text) > kMaxUntrustedJsonDepth)
    return Error(file + " is nested deeper than " + std::to_string(kMaxUntrustedJsonDepth) + " levels",
                 error_code::kBadFile, file);
  nlohmann::json json = nlohmann::json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded()) return Error(file + " is not valid JSON (or not valid UTF-8)", error_code::kBadFile, file);
  return json;
}

}  // namespace attention
