#include "attention/tokenizer.hpp"

#include <cstdint>

namespace attention {

namespace {

enum class Kind { Separator, Punctuation, Single, Joiner, Mark, Word };

bool in(char32_t c, char32_t lo, char32_t hi) { return c >= lo && c <= hi; }

bool is_emoji(char32_t c) {
  return in(c, 0x1F000, 0x1FAFF) || in(c, 0x2600, 0x27BF) || in(c, 0x2300, 0x23FF) || in(c, 0x2B00, 0x2BFF);
}

Kind classify(char32_t c) {
  if (c <= 0x20 || c == 0x7F || in(c, 0x80, 0x9F)) return Kind::Separator;  // space and controls, NUL included
  if (c == 0xA0 || c == 0x1680 || in(c, 0x2000, 0x200B) || c == 0x2028 || c == 0x2029 || c == 0x202F || c == 0x205F ||
      c == 0x3000 || c == 0xFEFF || c == 0x2060)
    return Kind::Separator;
  if (c < 0x80) {
    const bool alnum = in(c, '0', '9') || in(c, 'a', 'z') || in(c, 'A', 'Z') || c == '_';
    return alnum ? Kind::Word : Kind::Punctuation;
  }
  if (c == 0x200D || c == 0xFE0F || c == 0xFE0E || in(c, 0x1F3FB, 0x1F3FF)) return Kind::Joiner;
  if (in(c, 0x0300, 0x036F) || in(c, 0x1AB0, 0x1AFF) || in(c, 0x20D0, 0x20FF) || in(c, 0xFE20, 0xFE2F))
    return Kind::Mark;
  if (in(c, 0xA1, 0xBF) || c == 0xD7 || c == 0xF7 || in(c, 0x2010, 0x2027) || in(c, 0x2030, 0x205E) ||
      in(c, 0x3001, 0x3003) || in(c, 0x3008, 0x3011) || in(c, 0x3014, 0x301F) || in(c, 0xFF01, 0xFF0F) ||
      in(c, 0xFF1A, 0xFF20) || in(c, 0xFF3B, 0xFF40) || in(c, 0xFF5B, 0xFF65) || c == 0x060C || c == 0x061F ||
      c == 0x06D4 || c == 0x0964 || c == 0x0965)
    return Kind::Punctuation;
  if (in(c, 0x4E00, 0x9FFF) || in(c, 0x3400, 0x4DBF) || in(c, 0x20000, 0x2FFFF) || in(c, 0xF900, 0xFAFF) || is_emoji(c))
    return Kind::Single;
  return Kind::Word;
}

// Decodes one code point at text[i]; returns its byte length, or 0 if the bytes
// there are not valid UTF-8 (overlong forms, surrogates and values past U+10FFFF
// included).
int decode(std::string_view text, std::size_t i, char32_t& out) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char b0 = byte(i);
  int length;
  char32_t cp;
  if (b0 < 0x80) {
    out = b0;
    return 1;
  }
  if ((b0 & 0xE0) == 0xC0) {
    length = 2;
    cp = b0 & 0x1F;
  } else if ((b0 & 0xF0) == 0xE0) {
    length = 3;
    cp = b0 & 0x0F;
  } else if ((b0 & 0xF8) == 0xF0) {
    length = 4;
    cp = b0 & 0x07;
  } else
    return 0;
  if (i + length > text.size()) return 0;
  for (int k = 1; k < length; ++k) {
    if ((byte(i + k) & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (byte(i + k) & 0x3F);
  }
  static const char32_t kMinimum[5] = {0, 0, 0x80, 0x800, 0x10000};
  if (cp < kMinimum[length] || cp > 0x10FFFF || in(cp, 0xD800, 0xDFFF)) return 0;
  out = cp;
  return length;
}

bool is_apostrophe(char32_t c) { return c == '\'' || c == 0x2019; }

}  // namespace

Result<std::vector<std::string>> tokenize(std::string_view text, int max_tokens) {
  if (text.size() > static_cast<std::size_t>(kMaxTextBytes))
    return Error{
        "text is " + std::to_string(text.size()) + " bytes long; the limit is " + std::to_string(kMaxTextBytes),
        error_code::kLimitExceeded, "texts"};
  // Decode first, so that rules can look one code point ahead.
  std::vector<char32_t> points;
  std::vector<std::size_t> starts;
  for (std::size_t i = 0; i < text.size();) {
    char32_t c;
    const int n = decode(text, i, c);
    if (n == 0)
      return Error{"text is not valid UTF-8 at byte " + std::to_string(i), error_code::kInvalidArgument, "texts"};
    points.push_back(c);
    starts.push_back(i);
    i += static_cast<std::size_t>(n);
  }
  starts.push_back(text.size());

  std::vector<std::string> tokens;
  std::size_t token_start = 0;
  bool in_token = false;
  Kind token_kind = Kind::Word;
  const auto close = [&](std::size_t end) {
    if (in_token) tokens.emplace_back(text.substr(token_start, end - token_start));
    in_token = false;
  };
  const auto open = [&](std::size_t start, Kind kind) {
    token_start = start;
    in_token = true;
    token_kind = kind;
  };
  for (std::size_t p = 0; p < points.size(); ++p) {
    const char32_t c = points[p];
    Kind kind = classify(c);
    const bool next_is_word = p + 1 < points.size() && classify(points[p + 1]) == Kind::Word;
    if (is_apostrophe(c) && in_token && token_kind == Kind::Word && next_is_word) kind = Kind::Word;
    switch (kind) {
      case Kind::Separator:
        close(starts[p]);
        break;
      case Kind::Punctuation:
        close(starts[p]);
        open(starts[p], kind);
        close(starts[p + 1]);
        break;
      case Kind::Joiner:  // ZWJ, variation selectors, skin tones: glue to what came before
      case Kind::Mark:
        if (!in_token) open(starts[p], Kind::Word);
        break;
      case Kind::Single: {
        // An emoji right after a ZWJ continues the sequence (family, profession emoji).
        const bool joined = in_token && token_kind == Kind::Single && p > 0 && points[p - 1] == 0x200D;
        if (!joined) {
          close(starts[p]);
          open(starts[p], Kind::Single);
        }
        break;
      }
      case Kind::Word:
        if (!in_token || token_kind != Kind::Word) {
          close(starts[p]);
          open(starts[p], Kind::Word);
        }
        break;
    }
    if (kind == Kind::Single && !is_emoji(c)) close(starts[p + 1]);  // ideographs take no modifiers
    if (static_cast<int>(tokens.size()) > max_tokens)
      return Error{"text has more than " + std::to_string(max_tokens) + " tokens, the maximum",
                   error_code::kLimitExceeded, "texts"};
  }
  close(text.size());
  if (static_cast<int>(tokens.size()) > max_tokens)
    return Error{"text has more than " + std::to_string(max_tokens) + " tokens, the maximum",
                 error_code::kLimitExceeded, "texts"};
  return tokens;
}

Result<TokenBatch> tokenize_batch(const std::vector<std::string>& texts, int max_tokens) {
  // Every error names the field "texts" (a caller of a second batch, such as cross mode's
  // source, renames it), with limit_exceeded for the stated limits.
  if (texts.empty()) return Error{"no texts given: type at least one sentence", error_code::kInvalidArgument, "texts"};
  if (static_cast<int>(texts.size()) > kMaxTexts)
    return Error{std::to_string(texts.size()) + " texts given; the maximum batch is " + std::to_string(kMaxTexts),
                 error_code::kLimitExceeded, "texts"};
  TokenBatch batch;
  for (std::size_t b = 0; b < texts.size(); ++b) {
    Result<std::vector<std::string>> tokens = tokenize(texts[b], max_tokens);
    if (!tokens) return Error{"text " + std::to_string(b) + ": " + tokens.error(), tokens.error_value().code, "texts"};
    batch.lengths.push_back(static_cast<int>(tokens.value().size()));
    if (batch.lengths.back() > batch.padded_length) batch.padded_length = batch.lengths.back();
    batch.tokens.push_back(std::move(tokens.value()));
  }
  if (batch.padded_length == 0)
    return Error{"the text is empty: type at least one word", error_code::kInvalidArgument, "texts"};
  return batch;
}

std::string TextVocabulary::key_of(std::string_view piece) {
  std::string key(piece);
  for (char& c : key)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return key;
}

int TextVocabulary::id_for(std::string_view piece) {
  const std::string key = key_of(piece);
  for (std::size_t i = 1; i < keys_.size(); ++i)
    if (keys_[i] == key) return static_cast<int>(i);
  keys_.push_back(key);
  return size() - 1;
}

EncodedBatch encode(const TokenBatch& batch, TextVocabulary& vocabulary) {
  EncodedBatch out;
  out.pieces = batch.tokens;
  out.lengths = batch.lengths;
  out.seq = batch.padded_length;
  out.ids.assign(batch.tokens.size() * static_cast<std::size_t>(out.seq), TextVocabulary::kPadId);
  for (std::size_t b = 0; b < batch.tokens.size(); ++b)
    for (std::size_t s = 0; s < batch.tokens[b].size(); ++s)
      out.ids[b * out.seq + s] = vocabulary.id_for(batch.tokens[b][s]);
  return out;
}

}  // namespace attention
