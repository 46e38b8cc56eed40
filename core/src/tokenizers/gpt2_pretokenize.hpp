#pragma once
// Internal: GPT-2's pre-tokenizer, the regex
//   's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
// written out as a hand-made matcher (std::regex has no \p{L} / \p{N}).
#include <string_view>
#include <vector>

namespace attention::tokenizers {

// The text split into the regex's consecutive matches (which cover all of it).
// The text must be valid UTF-8 (the caller checks).
std::vector<std::string_view> gpt2_pretokenize(std::string_view text);

}  // namespace attention::tokenizers
