#pragma once
// GPT-2's byte-level BPE tokenizer (the one of the released GPT-2 models, OpenAI's
// encoder.py; tiktoken calls the same vocabulary r50k_base), for loading real
// pretrained models. Steps of encode(text):
//   1. the pre-tokenizer regex splits the text into pieces
//        's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
//   2. each piece's UTF-8 bytes become printable characters (bytes_to_unicode: a
//      space is 'Ġ', a newline 'Ċ'), so every token is a string of those characters;
//   3. byte-pair merges, lowest rank first, join the characters into vocabulary
//      tokens; their ids are the output.
// decode(ids) runs it backwards; pieces(ids) gives the token strings to display
// ("Ġthe"). Errors (invalid UTF-8, unknown ids, malformed files) come back as
// Result errors, never as exceptions or aborts.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "attention/result.hpp"

namespace attention {

class Gpt2BpeTokenizer {
 public:
  // Ids at or past this are refused: a guard against a vocabulary that would make
  // the id -> token table huge (GPT-2 has 50257 tokens).
  static constexpr int kMaxTokenId = 1 << 22;

  // From encoder.json / vocab.json (a JSON object token -> id) and vocab.bpe /
  // merges.txt (an optional "#version" first line, then one "left right" merge a
  // line, highest priority first).
  static Result<Gpt2BpeTokenizer> from_vocab_and_merges(std::string_view vocab_json, std::string_view merges_text);

  // From a Hugging Face tokenizer.json: model.vocab and model.merges (merges as
  // "left right" strings or as [left, right] pairs). Only the BPE model is read; the
  // file's pre-tokenizer and added tokens are not (GPT-2's are implied).
  static Result<Gpt2BpeTokenizer> from_tokenizer_json(std::string_view tokenizer_json);

  // From parsed parts: token -> id, and the merges in priority order. Checks that
  // ids are unique and in range, that every byte has its one-character token, and
  // that each merge's parts and result are tokens.
  static Result<Gpt2BpeTokenizer> create(const std::vector<std::pair<std::string, int>>& vocab,
                                         const std::vector<std::pair<std::string, std::string>>& merges);

  // Text (valid UTF-8) -> ids. Not const: it fills a cache of merged pieces, so one
  // tokenizer must not encode from two threads at once.
  Result<std::vector<int>> encode(std::string_view text);

  // Ids -> text. Bytes that are not valid UTF-8 (e.g. half of an emoji's tokens)
  // become U+FFFD, as in the reference's errors="replace".
  Result<std::string> decode(const std::vector<int>& ids) const;

  // Ids -> their token strings, as stored in the vocabulary ("Ġthe").
  Result<std::vector<std::string>> pieces(const std::vector<int>& ids) const;

  std::optional<int> id_of(std::string_view token) const;
  int vocab_size() const { return static_cast<int>(encoder_.size()); }
  int merge_count() const { return static_cast<int>(ranks_.size()); }

 private:
  Gpt2BpeTokenizer() = default;
  Result<std::vector<int>> encode_piece(std::string_view piece);
  std::vector<std::string> merge(std::vector<std::string> symbols) const;
  std::optional<int> rank_of(const std::string& left, const std::string& right) const;

  std::unordered_map<std::string, int> encoder_;     // token -> id
  std::vector<std::optional<std::string>> decoder_;  // id -> token (gaps allowed)
  std::unordered_map<std::string, int> ranks_;       // pair key -> merge rank
  std::vector<std::string> byte_to_char_;            // byte -> its character (UTF-8), 256
  std::unordered_map<char32_t, unsigned char> char_to_byte_;
  std::unordered_map<std::string, std::vector<int>> cache_;  // pre-tokenized piece -> ids
};

}  // namespace attention
