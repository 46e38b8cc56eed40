#include "attention/bpe_tokenizer.hpp"

#include <cstdint>
#include <cstdio>

#include "src/tokenizers/gpt2_pretokenize.hpp"
#include "src/tokenizers/unicode_classes.hpp"

namespace attention {

namespace {

using tokenizers::append_utf8;
using tokenizers::decode_utf8;

// A bound on the cache of merged pieces, so a long stream of distinct words cannot
// grow it without end; when full it is simply emptied.
constexpr std::size_t kMaxCacheEntries = 1 << 16;

// GPT-2's bytes_to_unicode(): printable Latin-1 bytes ('!'..'~', '¡'..'¬', '®'..'ÿ')
// stand for themselves; the other 68 bytes (controls, space, soft hyphen...) get
// U+0100 upwards in byte order, so a space is U+0120 'Ġ' and a newline U+010A 'Ċ'.
std::vector<char32_t> bytes_to_unicode() {
  std::vector<char32_t> map(256);
  char32_t next = 256;
  for (int b = 0; b < 256; ++b) {
    const bool printable = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
    map[b] = printable ? static_cast<char32_t>(b) : next++;
  }
  return map;
}

// Merge ranks are keyed by both parts; the left part's length comes first so that
// no two different pairs can share a key, whatever bytes the tokens hold.
std::string pair_key(const std::string& left, const std::string& right) {
  std::string key(sizeof(std::uint32_t), '\0');
  const auto n = static_cast<std::uint32_t>(left.size());
  for (std::size_t i = 0; i < sizeof n; ++i) key[i] = static_cast<char>((n >> (8 * i)) & 0xFF);
  key += left;
  key += right;
  return key;
}

Error bad_file(const std::string& message, const std::string& field) {
  return Error(message, error_code::kBadFile, field);
}

std::string quoted(const std::string& token) { return "'" + token + "'"; }

std::string code_point_name(char32_t c) {
  char buffer[16];
  std::snprintf(buffer, sizeof buffer, "U+%04X", static_cast<unsigned>(c));
  return buffer;
}

}  // namespace

Result<Gpt2BpeTokenizer> Gpt2BpeTokenizer::create(const std::vector<std::pair<std::string, int>>& vocab,
                                                  const std::vector<std::pair<std::string, std::string>>& merges) {
  if (vocab.empty()) return bad_file("the vocabulary is empty", "vocab");
  Gpt2BpeTokenizer t;
  for (const auto& [token, id] : vocab) {
    if (id < 0 || id >= kMaxTokenId)
      return bad_file("token " + quoted(token) + " has id " + std::to_string(id) + ", outside 0.." +
                          std::to_string(kMaxTokenId - 1),
                      "vocab");
    if (!t.encoder_.emplace(token, id).second) return bad_file("token " + quoted(token) + " is listed twice", "vocab");
    if (static_cast<std::size_t>(id) >= t.decoder_.size()) t.decoder_.resize(static_cast<std::size_t>(id) + 1);
    if (t.decoder_[id])
      return bad_file(
          "id " + std::to_string(id) + " is given to both " + quoted(*t.decoder_[id]) + " and " + quoted(token),
          "vocab");
    t.decoder_[id] = token;
  }

  const std::vector<char32_t> map = bytes_to_unicode();
  t.byte_to_char_.resize(256);
  for (int b = 0; b < 256; ++b) {
    append_utf8(t.byte_to_char_[b], map[b]);
    t.char_to_byte_[map[b]] = static_cast<unsigned char>(b);
    // Every byte must be encodable on its own, or some texts would have no tokens.
    if (!t.encoder_.count(t.byte_to_char_[b]))
      return bad_file("the vocabulary lacks the token " + quoted(t.byte_to_char_[b]) + " of byte " + std::to_string(b) +
                          ": not a byte-level BPE vocabulary",
                      "vocab");
  }

  for (std::size_t rank = 0; rank < merges.size(); ++rank) {
    const auto& [left, right] = merges[rank];
    const std::string where = "merge " + std::to_string(rank + 1) + " (" + quoted(left) + " " + quoted(right) + ")";
    if (left.empty() || right.empty()) return bad_file(where + " has an empty part", "merges");
    for (const std::string& token : {left, right, left + right})
      if (!t.encoder_.count(token))
        return bad_file(where + ": " + quoted(token) + " is not in the vocabulary", "merges");
    if (!t.ranks_.emplace(pair_key(left, right), static_cast<int>(rank)).second)
      return bad_file(where + " repeats an earlier merge", "merges");
  }
  return t;
}

std::optional<int> Gpt2BpeTokenizer::rank_of(const std::string& left, const std::string& right) const {
  const auto it = ranks_.find(pair_key(left, right));
  if (it == ranks_.end()) return std::nullopt;
  return it->second;
}

// encoder.py's bpe(): while some adjacent pair has a merge, take the pair of lowest
// rank and join every occurrence of it, left to right.
std::vector<std::string> Gpt2BpeTokenizer::merge(std::vector<std::string> word) const {
  while (word.size() > 1) {
    std::optional<int> best;
    std::size_t best_at = 0;
    for (std::size_t i = 0; i + 1 < word.size(); ++i) {
      const std::optional<int> rank = rank_of(word[i], word[i + 1]);
      if (rank && (!best || *rank < *best)) {
        best = rank;
        best_at = i;
      }
    }
    if (!best) break;
    const std::string first = word[best_at];
    const std::string second = word[best_at + 1];
    std::vector<std::string> joined;
    joined.reserve(word.size());
    for (std::size_t i = 0; i < word.size();) {
      if (i + 1 < word.size() && word[i] == first && word[i + 1] == second) {
        joined.push_back(first + second);
        i += 2;
      } else {
        joined.push_back(std::move(word[i]));
        i += 1;
      }
    }
    word = std::move(joined);
  }
  return word;
}

Result<std::vector<int>> Gpt2BpeTokenizer::encode_piece(std::string_view piece) {
  const std::string key(piece);
  if (const auto hit = cache_.find(key); hit != cache_.end()) return hit->second;

  std::vector<std::string> symbols;  // one byte each, as its character
  symbols.reserve(piece.size());
  for (char byte : piece) symbols.push_back(byte_to_char_[static_cast<unsigned char>(byte)]);

  std::vector<int> ids;
  for (const std::string& token : merge(std::move(symbols))) {
    const auto it = encoder_.find(token);
    // create() checked that every byte and every merge result is a token.
    if (it == encoder_.end())
      return Error("internal: merged token " + quoted(token) + " has no id", error_code::kBadFile);
    ids.push_back(it->second);
  }
  if (cache_.size() >= kMaxCacheEntries) cache_.clear();
  cache_.emplace(key, ids);
  return ids;
}

Result<std::vector<int>> Gpt2BpeTokenizer::encode(std::string_view text) {
  if (const std::size_t bad = tokenizers::find_invalid_utf8(text); bad != std::string_view::npos)
    return Error("the text is not valid UTF-8 (at byte " + std::to_string(bad) + ")", error_code::kInvalidArgument,
                 "text");
  std::vector<int> ids;
  for (std::string_view piece : tokenizers::gpt2_pretokenize(text)) {
    Result<std::vector<int>> piece_ids = encode_piece(piece);
    if (!piece_ids) return piece_ids.error_value();
    ids.insert(ids.end(), piece_ids.value().begin(), piece_ids.value().end());
  }
  return ids;
}

Result<std::vector<std::string>> Gpt2BpeTokenizer::pieces(const std::vector<int>& ids) const {
  std::vector<std::string> out;
  out.reserve(ids.size());
  for (std::size_t i = 0; i < ids.size(); ++i) {
    const int id = ids[i];
    if (id < 0 || static_cast<std::size_t>(id) >= decoder_.size() || !decoder_[id])
      return Error("ids[" + std::to_string(i) + "] = " + std::to_string(id) + " is not a token id",
                   error_code::kOutOfRange, "ids");
    out.push_back(*decoder_[id]);
  }
  return out;
}

Result<std::string> Gpt2BpeTokenizer::decode(const std::vector<int>& ids) const {
  Result<std::vector<std::string>> tokens = pieces(ids);
  if (!tokens) return tokens.error_value();
  std::string bytes;
  for (std::size_t i = 0; i < tokens.value().size(); ++i) {
    const std::string& token = tokens.value()[i];
    for (std::size_t at = 0; at < token.size();) {
      char32_t c = 0;
      const std::size_t n = decode_utf8(token, at, c);
      const auto it = n == 0 ? char_to_byte_.end() : char_to_byte_.find(c);
      if (it == char_to_byte_.end())
        return Error("token " + std::to_string(ids[i]) + " (" + quoted(token) + ") holds " +
                         (n == 0 ? std::string("invalid UTF-8") : code_point_name(c)) + ", which stands for no byte",
                     error_code::kInvalidArgument, "ids");
      bytes += static_cast<char>(it->second);
      at += n;
    }
  }
  return tokenizers::utf8_with_replacement(bytes);
}

std::optional<int> Gpt2BpeTokenizer::id_of(std::string_view token) const {
  const auto it = encoder_.find(std::string(token));
  if (it == encoder_.end()) return std::nullopt;
  return it->second;
}

}  // namespace attention
