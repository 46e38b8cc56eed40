#pragma once
// Internal: GPT-2's pre-tokenizer, the regex
//   's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
// written out as a hand-made matcher (std::regex has no \p{L} / \p{N}). The classes
// are those of the Python regex module that encoder.py uses (unicode_classes.hpp);
// a reference built on an engine of another Unicode version can split differently
// only around code points assigned in between. Matching is by code point, as
// Python's str does (no grapheme clusters, no normalisation).
#include <string_view>
#include <vector>

namespace attention::tokenizers {

// The text split into the regex's consecutive matches (which cover all of it).
// The text must be valid UTF-8 (the caller checks).
std::vector<std::string_view> gpt2_pretokenize(std::string_view text);

}  // namespace attention::tokenizers
