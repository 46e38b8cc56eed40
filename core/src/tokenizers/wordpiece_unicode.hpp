#pragma once
// Internal to the WordPiece tokenizer: the character classes and the two Unicode
// transforms of BERT's basic tokenizer (Hugging Face's BertNormalizer and
// BertPreTokenizer). Tables from scripts/gen_wordpiece_unicode.py.
#include <string>

namespace attention::tokenizers {

// What clean_text drops: categories Cc, Cf, Co, Cs (the Rust tokenizers' is_other,
// which leaves unassigned code points alone), except '\t', '\n', '\r', which are
// whitespace.
bool is_bert_control(char32_t c);
// BERT's whitespace: Unicode White_Space (so also U+2028, U+2029, U+0085, which the
// Rust tokenizers count and Python's BertTokenizer does not; U+0085, '\v' and '\f'
// are controls and dropped before this is asked).
bool is_bert_whitespace(char32_t c);
// BERT's _is_punctuation: every ASCII symbol ('$', '+', '^', '`' ... are not P*
// but count) and categories P*.
bool is_bert_punctuation(char32_t c);
// The CJK ideograph blocks of BERT's _is_chinese_char (no kana, no Hangul).
bool is_cjk_ideograph(char32_t c);
// Category Mn, what strip_accents removes after NFD.
bool is_nonspacing_mark(char32_t c);

// Appends c lowercased as Python's str.lower() / Rust's char::to_lowercase() do for
// one code point (U+0130 becomes two; no context rules such as a final sigma, since
// the Rust tokenizers lowercase code point by code point).
void append_lowercase(std::u32string& out, char32_t c);
// NFD: the full canonical decomposition of each code point, then canonical ordering
// of each run of combining marks (a stable sort by combining class).
std::u32string nfd(const std::u32string& text);

}  // namespace attention::tokenizers
