#pragma once
// BERT's WordPiece tokenizer, for loading real pretrained BERT models. It follows
// Hugging Face's tokenizers (the Rust library behind BertTokenizerFast, i.e. what
// AutoTokenizer gives), and tests/core/test_wordpiece.cpp checks it against it and
// against transformers.js' tokenizers. Steps of encode(text):
//   1. added tokens: the special tokens ([CLS], [SEP], [PAD], [MASK], [UNK] and any
//      other in tokenizer.json's added_tokens with "normalized": false) are found in
//      the raw text, case-sensitively and leftmost-longest, before anything else, and
//      kept whole: "a[MASK]b" is a, [MASK], b; "[mask]" is not one (it becomes
//      "[", "mask", "]"). Added tokens with "normalized": true are found the same
//      way in the normalized text of the rest.
//   2. BertNormalizer, in this order:
//        clean_text      drop U+0000, U+FFFD and categories Cc Cf Co Cs (but '\t',
//                        '\n', '\r'); every White_Space character becomes ' '
//        chinese chars   ' ' around each CJK ideograph (not kana, not Hangul)
//        strip_accents   NFD, then drop category Mn (unset: follows lowercase)
//        lowercase       code point by code point (Σ is always σ: no final sigma)
//   3. BertPreTokenizer: split on whitespace (dropped) and around every punctuation
//      character (ASCII symbols and categories P*, each its own word).
//   4. WordPiece: each word greedily, longest vocabulary match first, later pieces
//      looked up with the "##" prefix; a word with no full segmentation, or longer
//      than max_input_chars_per_word code points, is one [UNK].
// Text must be valid UTF-8 (else an invalid_argument error naming the byte) and at
// most kMaxTextBytes long (else limit_exceeded). The work is bounded: linear in the
// text, times the longest token's length for WordPiece's search. Files are checked
// when loaded; a malformed one is a bad_file error naming the line or key. Nothing
// here throws or aborts. The Unicode tables are Python's unicodedata (Unicode 14),
// from scripts/gen_wordpiece_unicode.py.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "attention/result.hpp"

namespace attention {

// BertTokenizer's options (tokenizer_config.json / BertNormalizer's fields).
struct WordPieceOptions {
  bool lowercase = true;               // do_lower_case
  std::optional<bool> strip_accents;   // unset: the same as lowercase, as in HF
  bool tokenize_chinese_chars = true;  // handle_chinese_chars
  bool clean_text = true;              // only tokenizer.json can turn it off
  std::string unk_token = "[UNK]";
  std::string cls_token = "[CLS]";
  std::string sep_token = "[SEP]";
  std::string pad_token = "[PAD]";
  std::string mask_token = "[MASK]";
  int max_input_chars_per_word = 100;
  std::string continuing_subword_prefix = "##";
};

// A model's input: [CLS] a [SEP] (b [SEP]), with token type 0 for the first part and
// 1 for the second (as the post-processor of the file says).
struct WordPieceEncoding {
  std::vector<int> ids;
  std::vector<int> token_type_ids;
};

class WordPieceTokenizer {
 public:
  // Longer texts are refused (limit_exceeded); a BERT model reads 512 tokens anyway.
  static constexpr std::size_t kMaxTextBytes = std::size_t{1} << 20;
  // Ids at or past this are refused when loading (BERT's vocabularies hold ~30k-120k).
  static constexpr int kMaxTokenId = 1 << 22;
  // Longer added tokens are refused when loading: matching them costs up to this many
  // steps per text position.
  static constexpr std::size_t kMaxAddedTokenChars = 256;

  // From vocab.txt: one token a line, id = line number from 0 ('\r\n' endings and a
  // last line without '\n' are fine; an empty line in the middle is an error, as is
  // a token listed twice). The unk token must be in it; [CLS]/[SEP] too, as
  // encode_for_model needs them. The special tokens found in the vocabulary are the
  // added tokens (step 1 above).
  static Result<WordPieceTokenizer> from_vocab_txt(std::string_view vocab_txt, const WordPieceOptions& options = {});

  // From a Hugging Face tokenizer.json: normalizer BertNormalizer (also alone in a
  // Sequence) or null, pre_tokenizer BertPreTokenizer (also alone in a Sequence),
  // model WordPiece, post_processor TemplateProcessing or BertProcessing (null: the
  // [CLS]/[SEP] template from the vocabulary), decoder WordPiece or null, and
  // added_tokens. Anything else is an error naming the key. truncation and padding
  // are not applied.
  static Result<WordPieceTokenizer> from_tokenizer_json(std::string_view tokenizer_json);

  // Reads do_lower_case, strip_accents, tokenize_chinese_chars and the *_token
  // strings of a tokenizer_config.json over `base` (keys it lacks keep base's value).
  static Result<WordPieceOptions> options_from_tokenizer_config(std::string_view config_json,
                                                                WordPieceOptions base = {});

  // Text -> ids, without [CLS]/[SEP].
  Result<std::vector<int>> encode(std::string_view text) const;
  // The model's input for one text or a pair (the post-processor's template).
  Result<WordPieceEncoding> encode_for_model(std::string_view text_a,
                                             std::optional<std::string_view> text_b = std::nullopt) const;

  // Ids -> their token strings as in the vocabulary ("##ing" stays so).
  Result<std::vector<std::string>> pieces(const std::vector<int>& ids) const;
  // Ids -> text, as the Rust tokenizers' decode with the WordPiece decoder: tokens
  // joined by ' ', a "##" piece glued to the one before, and with cleanup on, each
  // token's " ." " ?" " !" " ," " n't" " 's" ... lose their space (it works token by
  // token, so "don ' t" stays; transformers' clean_up_tokenization_spaces, run on the
  // whole text afterwards, is not applied). skip_special_tokens drops the special
  // added tokens.
  Result<std::string> decode(const std::vector<int>& ids, bool skip_special_tokens = false) const;

  std::optional<int> id_of(std::string_view token) const;
  int vocab_size() const { return static_cast<int>(vocab_.size()); }
  int unk_id() const { return unk_id_; }
  std::optional<int> cls_id() const { return id_of(options_.cls_token); }
  std::optional<int> sep_id() const { return id_of(options_.sep_token); }
  std::optional<int> pad_id() const { return id_of(options_.pad_token); }
  std::optional<int> mask_id() const { return id_of(options_.mask_token); }
  const WordPieceOptions& options() const { return options_; }

  // A file's parts once parsed: what the loaders hand to create(), which checks them.
  struct AddedToken {
    std::string content;
    int id = 0;
    bool special = true;
    bool normalized = false;  // matched in the normalized text rather than the raw one
    bool lstrip = false;      // the match takes the whitespace before it
    bool rstrip = false;      // ... and after it
  };
  struct TemplatePiece {   // one element of a post-processor template
    int sequence = -1;     // 0 for A, 1 for B; -1 for special tokens
    std::vector<int> ids;  // the special token's ids
    int type_id = 0;
  };
  struct Parts {
    std::vector<std::string> vocab;  // id -> token; no gaps
    std::vector<AddedToken> added;
    WordPieceOptions options;
    std::optional<std::vector<TemplatePiece>> single, pair;  // unset: BERT's from cls/sep
    bool decoder_wordpiece = true;
    bool decoder_cleanup = true;
    std::string decoder_prefix = "##";
  };
  static Result<WordPieceTokenizer> create(Parts parts);

 private:
  // The added tokens' strings as a trie of code points, walked from each position
  // for the longest match (so a search costs at most the longest token's length).
  struct Trie {
    std::unordered_map<std::uint64_t, int> edges;  // node * 0x110000 + code point -> node
    std::vector<int> token_at{-1};                 // node -> index into added_, or -1
  };
  WordPieceTokenizer() = default;
  void split_added(const std::u32string& text, bool normalized_pass, std::vector<int>& ids) const;
  std::u32string normalize(const std::u32string& text) const;
  void pre_tokenize(const std::u32string& normalized, std::vector<int>& ids) const;
  void wordpiece(const std::string& word, std::size_t code_points, std::vector<int>& ids) const;

  std::vector<std::string> vocab_;
  std::unordered_map<std::string, int> ids_;  // the WordPiece model's token -> id
  std::vector<AddedToken> added_;
  std::unordered_map<std::string, int> added_ids_;  // added token -> id
  Trie raw_trie_, normalized_trie_;
  std::unordered_map<int, std::string> added_by_id_;  // added tokens past the vocabulary
  WordPieceOptions options_;
  std::vector<TemplatePiece> single_, pair_;
  bool decoder_wordpiece_ = true;
  bool decoder_cleanup_ = true;
  std::string decoder_prefix_ = "##";
  int unk_id_ = 0;
  std::size_t longest_token_bytes_ = 0;
};

}  // namespace attention
