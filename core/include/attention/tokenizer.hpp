#pragma once
// A word-and-punctuation tokenizer for the playground (not a trained subword
// tokenizer). Rules, on Unicode code points of valid UTF-8 text:
//   - white space, control characters and zero-width spaces separate tokens;
//   - each punctuation mark is its own token ("sat." -> "sat", ".");
//     an apostrophe between letters stays inside the word ("don't");
//   - each CJK ideograph and each emoji (with its modifiers and ZWJ joins) is its
//     own token, since those scripts do not separate words with spaces;
//   - everything else (letters, digits, combining marks) forms words.
// A batch of texts becomes padded ids-by-position plus per-text lengths.
#include <string>
#include <string_view>
#include <vector>

#include "attention/result.hpp"

namespace attention {

inline constexpr int kMaxTokensPerText = 128;
inline constexpr int kMaxTexts = 16;
inline constexpr int kMaxTextBytes = 8192;

Result<std::vector<std::string>> tokenize(std::string_view text, int max_tokens = kMaxTokensPerText);

struct TokenBatch {
  std::vector<std::vector<std::string>> tokens;  // per text, unpadded
  std::vector<int> lengths;                      // tokens[b].size()
  int padded_length = 0;                         // max of lengths: S
};

// Every text tokenized; errors name the text (0-based) and the problem. At least
// one text must hold a token.
Result<TokenBatch> tokenize_batch(const std::vector<std::string>& texts, int max_tokens = kMaxTokensPerText);

// A vocabulary built from the texts themselves, for the untrained playground model:
// id 0 is padding ("<pad>"); every other id is one distinct token, with ASCII letters
// lower-cased ("The" and "the" share an id).
class TextVocabulary {
 public:
  TextVocabulary() : keys_{"<pad>"} {}
  static constexpr int kPadId = 0;
  static std::string key_of(std::string_view piece);
  int id_for(std::string_view piece);  // adds the piece's key if new
  int size() const { return static_cast<int>(keys_.size()); }
  const std::vector<std::string>& keys() const { return keys_; }

 private:
  std::vector<std::string> keys_;
};

// Token ids plus the pieces to display: ids (B, S) padded with kPadId.
struct EncodedBatch {
  std::vector<std::vector<std::string>> pieces;  // per text, unpadded
  std::vector<int> ids;                          // (B, S)
  std::vector<int> lengths;                      // (B)
  int seq = 0;                                   // S
};

EncodedBatch encode(const TokenBatch& batch, TextVocabulary& vocabulary);

}  // namespace attention
