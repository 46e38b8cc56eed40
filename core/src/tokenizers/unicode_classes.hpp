#pragma once
// Internal to the tokenizers: UTF-8 decoding and the few Unicode classes GPT-2's
// pre-tokenizer needs (\p{L}, \p{N}, \s). std::regex has no \p{...}, hence these.
#include <cstddef>
#include <string>
#include <string_view>

namespace attention::tokenizers {

// Decodes the code point at text[i]. Returns its length in bytes (1..4), or 0 if the
// bytes there are not valid UTF-8 (overlong forms, surrogates and values past
// U+10FFFF included).
std::size_t decode_utf8(std::string_view text, std::size_t i, char32_t& code_point);

// Appends the UTF-8 form of a valid code point.
void append_utf8(std::string& out, char32_t code_point);

// The byte offset of the first invalid UTF-8 sequence, or npos if the text is valid.
std::size_t find_invalid_utf8(std::string_view text);

// Decodes bytes as UTF-8 the way Python's bytes.decode("utf-8", errors="replace")
// does: each maximal invalid subpart becomes one U+FFFD.
std::string utf8_with_replacement(std::string_view bytes);

bool is_letter(char32_t c);  // \p{L} (categories L*), tables from scripts/gen_unicode_classes.py
bool is_number(char32_t c);  // \p{N} (categories N*)
bool is_space(char32_t c);   // the Unicode White_Space property

}  // namespace attention::tokenizers
