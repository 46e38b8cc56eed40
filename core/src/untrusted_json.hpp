#pragma once
// JSON from users' files (tokenizer.json, config.json, ...), parsed with a nesting bound:
// real files nest a few levels; the bound keeps a hostile file from exhausting the stack
// of a recursive visitor, copy or destructor. Private to core/src.
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "attention/result.hpp"

namespace attention {

inline constexpr int kMaxUntrustedJsonDepth = 64;

// The parsed value, or a kBadFile Error naming `file` (too deep, or not JSON / not UTF-8).
Result<nlohmann::json> parse_untrusted_json(std::string_view text, const std::string& file);

}  // namespace attention
