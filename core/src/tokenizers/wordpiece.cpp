// WordPiece encoding and decoding (the steps are listed in wordpiece_tokenizer.hpp).
// Text is handled as code points (std::u32string) between decoding the input once and
// building each word's UTF-8 for the vocabulary lookups.
#include <algorithm>

#include "attention/wordpiece_tokenizer.hpp"
#include "src/tokenizers/unicode_classes.hpp"
#include "src/tokenizers/wordpiece_unicode.hpp"

namespace attention {

namespace {

using tokenizers::append_utf8;

constexpr std::uint64_t kCodeSpace = 0x110000;

Error bad_file(const std::string& message, const std::string& field) {
  return Error(message, error_code::kBadFile, field);
}

std::string quoted(const std::string& token) { return "'" + token + "'"; }

std::u32string to_u32(std::string_view text) {
  std::u32string out;
  for (std::size_t i = 0; i < text.size();) {
    char32_t c = 0;
    const std::size_t n = tokenizers::decode_utf8(text, i, c);
    if (n == 0) return out;  // callers checked the text first
    out += c;
    i += n;
  }
  return out;
}

Status check_text(std::string_view text, const char* field) {
  if (text.size() > WordPieceTokenizer::kMaxTextBytes)
    return Error(std::string(field) + " is " + std::to_string(text.size()) + " bytes, more than the " +
                     std::to_string(WordPieceTokenizer::kMaxTextBytes) + " the tokenizer takes",
                 error_code::kLimitExceeded, field);
  if (const std::size_t bad = tokenizers::find_invalid_utf8(text); bad != std::string_view::npos)
    return Error(std::string(field) + " is not valid UTF-8 (at byte " + std::to_string(bad) + ")",
                 error_code::kInvalidArgument, field);
  return Ok{};
}

// The Rust tokenizers' WordPiece decoder cleanup, applied to each token.
void replace_all(std::string& s, std::string_view from, std::string_view to) {
  for (std::size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
    s.replace(at, from.size(), to);
}

void cleanup(std::string& token) {
  static constexpr std::string_view kRules[][2] = {
      {" .", "."},   {" ?", "?"},           {" !", "!"},   {" ,", ","},     {" ' ", "'"},    {" n't", "n't"},
      {" 'm", "'m"}, {" do not", " don't"}, {" 's", "'s"}, {" 've", "'ve"}, {" 're", "'re"},
  };
  for (const auto& rule : kRules) replace_all(token, rule[0], rule[1]);
}

}  // namespace

Result<WordPieceTokenizer> WordPieceTokenizer::create(Parts parts) {
  WordPieceTokenizer t;
  const WordPieceOptions& o = parts.options;
  if (parts.vocab.empty()) return bad_file("the vocabulary is empty", "vocab");
  if (o.max_input_chars_per_word < 1)
    return bad_file("max_input_chars_per_word is " + std::to_string(o.max_input_chars_per_word) + ", not positive",
                    "max_input_chars_per_word");
  if (static_cast<long long>(parts.vocab.size()) > kMaxTokenId)
    return bad_file("the vocabulary has " + std::to_string(parts.vocab.size()) + " tokens, more than " +
                        std::to_string(kMaxTokenId),
                    "vocab");
  t.vocab_ = std::move(parts.vocab);
  for (std::size_t id = 0; id < t.vocab_.size(); ++id) {
    const std::string& token = t.vocab_[id];
    if (token.empty()) return bad_file("token " + std::to_string(id) + " is empty", "vocab");
    if (tokenizers::find_invalid_utf8(token) != std::string::npos)
      return bad_file("token " + std::to_string(id) + " is not valid UTF-8", "vocab");
    const auto [it, fresh] = t.ids_.emplace(token, static_cast<int>(id));
    if (!fresh)
      return bad_file("token " + quoted(token) + " is listed twice (ids " + std::to_string(it->second) + " and " +
                          std::to_string(id) + ")",
                      "vocab");
    t.longest_token_bytes_ = std::max(t.longest_token_bytes_, token.size());
  }
  const auto unk = t.ids_.find(o.unk_token);
  if (unk == t.ids_.end())
    return bad_file("the unknown token " + quoted(o.unk_token) + " is not in the vocabulary", "unk_token");
  t.unk_id_ = unk->second;
  t.options_ = parts.options;

  for (std::size_t i = 0; i < parts.added.size(); ++i) {
    const AddedToken& a = parts.added[i];
    const std::string where = "added token " + std::to_string(i) + " (" + quoted(a.content) + ")";
    if (a.content.empty()) return bad_file("added token " + std::to_string(i) + " is empty", "added_tokens");
    if (tokenizers::find_invalid_utf8(a.content) != std::string::npos)
      return bad_file("added token " + std::to_string(i) + " is not valid UTF-8", "added_tokens");
    if (a.id < 0 || a.id >= kMaxTokenId)
      return bad_file(where + " has id " + std::to_string(a.id) + ", outside 0.." + std::to_string(kMaxTokenId - 1),
                      "added_tokens");
    // A normalized token is looked for as the normalizer leaves it ("<X>" is found as
    // "<x>" when lowercasing), as the Rust tokenizers do.
    const std::u32string chars = a.normalized ? t.normalize(to_u32(a.content)) : to_u32(a.content);
    if (chars.empty()) return bad_file(where + " is empty once normalized", "added_tokens");
    if (chars.size() > kMaxAddedTokenChars)
      return bad_file(where + " is longer than " + std::to_string(kMaxAddedTokenChars) + " characters", "added_tokens");
    if (static_cast<std::size_t>(a.id) < t.vocab_.size() && t.vocab_[a.id] != a.content)
      return bad_file(
          where + " has id " + std::to_string(a.id) + ", which is " + quoted(t.vocab_[a.id]) + " in the vocabulary",
          "added_tokens");
    const auto known = t.ids_.find(a.content);
    if (known != t.ids_.end() && known->second != a.id)
      return bad_file(
          where + " has id " + std::to_string(a.id) + " but the vocabulary gives it " + std::to_string(known->second),
          "added_tokens");
    if (!t.added_ids_.emplace(a.content, a.id).second) return bad_file(where + " is listed twice", "added_tokens");
    if (static_cast<std::size_t>(a.id) >= t.vocab_.size()) {
      if (!t.added_by_id_.emplace(a.id, a.content).second)
        return bad_file(where + " shares its id " + std::to_string(a.id) + " with another added token", "added_tokens");
    }
    Trie& trie = a.normalized ? t.normalized_trie_ : t.raw_trie_;
    int node = 0;
    for (char32_t c : chars) {
      const std::uint64_t key = static_cast<std::uint64_t>(node) * kCodeSpace + c;
      auto edge = trie.edges.find(key);
      if (edge == trie.edges.end()) {
        edge = trie.edges.emplace(key, static_cast<int>(trie.token_at.size())).first;
        trie.token_at.push_back(-1);
      }
      node = edge->second;
    }
    trie.token_at[node] = static_cast<int>(i);
  }
  t.added_ = std::move(parts.added);

  // The post-processor's templates: the file's, or BERT's from [CLS] and [SEP].
  if (parts.single && parts.pair) {
    t.single_ = std::move(*parts.single);
    t.pair_ = std::move(*parts.pair);
  } else {
    const std::optional<int> cls = t.cls_id(), sep = t.sep_id();
    if (cls && sep) {
      t.single_ = {{-1, {*cls}, 0}, {0, {}, 0}, {-1, {*sep}, 0}};
      t.pair_ = {{-1, {*cls}, 0}, {0, {}, 0}, {-1, {*sep}, 0}, {1, {}, 1}, {-1, {*sep}, 1}};
    }
  }
  for (const auto* tmpl : {&t.single_, &t.pair_})
    for (const TemplatePiece& piece : *tmpl)
      for (int id : piece.ids)
        if (id < 0 || (static_cast<std::size_t>(id) >= t.vocab_.size() && !t.added_by_id_.count(id)))
          return bad_file("the post-processor's special token id " + std::to_string(id) + " is not a token id",
                          "post_processor");
  t.decoder_wordpiece_ = parts.decoder_wordpiece;
  t.decoder_cleanup_ = parts.decoder_cleanup;
  t.decoder_prefix_ = std::move(parts.decoder_prefix);
  return t;
}

std::optional<int> WordPieceTokenizer::id_of(std::string_view token) const {
  const std::string key(token);
  if (const auto it = added_ids_.find(key); it != added_ids_.end()) return it->second;
  if (const auto it = ids_.find(key); it != ids_.end()) return it->second;
  return std::nullopt;
}

std::u32string WordPieceTokenizer::normalize(const std::u32string& text) const {
  std::u32string out;
  out.reserve(text.size());
  for (char32_t c : text) {
    if (options_.clean_text) {
      if (c == 0 || c == 0xFFFD || tokenizers::is_bert_control(c)) continue;
      if (tokenizers::is_bert_whitespace(c)) c = U' ';
    }
    if (options_.tokenize_chinese_chars && tokenizers::is_cjk_ideograph(c)) {
      out += U' ';
      out += c;
      out += U' ';
    } else {
      out += c;
    }
  }
  if (options_.strip_accents.value_or(options_.lowercase)) {
    std::u32string decomposed = tokenizers::nfd(out);
    out.clear();
    for (char32_t c : decomposed)
      if (!tokenizers::is_nonspacing_mark(c)) out += c;
  }
  if (options_.lowercase) {
    std::u32string lower;
    lower.reserve(out.size());
    for (char32_t c : out) tokenizers::append_lowercase(lower, c);
    out = std::move(lower);
  }
  return out;
}

// Splits text at the added tokens of one trie (leftmost, then longest); the parts
// between go on: from the raw pass to normalization and the normalized pass, from
// there to pre-tokenization.
void WordPieceTokenizer::split_added(const std::u32string& text, bool normalized_pass, std::vector<int>& ids) const {
  const Trie& trie = normalized_pass ? normalized_trie_ : raw_trie_;
  auto rest = [&](std::size_t from, std::size_t to) {
    if (from >= to) return;
    const std::u32string part = text.substr(from, to - from);
    if (normalized_pass)
      pre_tokenize(part, ids);
    else
      split_added(normalize(part), true, ids);
  };
  std::size_t done = 0;  // text[0, done) is handled
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (trie.token_at.size() == 1) break;  // no added tokens here
    int node = 0, found = -1;
    std::size_t found_end = i;
    for (std::size_t j = i; j < text.size(); ++j) {
      const auto edge = trie.edges.find(static_cast<std::uint64_t>(node) * kCodeSpace + text[j]);
      if (edge == trie.edges.end()) break;
      node = edge->second;
      if (trie.token_at[node] >= 0) {
        found = trie.token_at[node];
        found_end = j + 1;
      }
    }
    if (found < 0) continue;
    const AddedToken& token = added_[found];
    std::size_t start = i, end = found_end;
    if (token.lstrip)
      while (start > done && tokenizers::is_bert_whitespace(text[start - 1])) --start;
    if (token.rstrip)
      while (end < text.size() && tokenizers::is_bert_whitespace(text[end])) ++end;
    rest(done, start);
    ids.push_back(token.id);
    done = end;
    i = end - 1;
  }
  rest(done, text.size());
}

void WordPieceTokenizer::pre_tokenize(const std::u32string& normalized, std::vector<int>& ids) const {
  std::string word;
  std::size_t chars = 0;
  auto flush = [&] {
    if (chars > 0) wordpiece(word, chars, ids);
    word.clear();
    chars = 0;
  };
  for (char32_t c : normalized) {
    if (tokenizers::is_bert_whitespace(c)) {
      flush();
    } else if (tokenizers::is_bert_punctuation(c)) {
      flush();
      append_utf8(word, c);
      chars = 1;
      flush();
    } else {
      append_utf8(word, c);
      ++chars;
    }
  }
  flush();
}

// Greedy longest match first. A candidate longer than the longest token cannot
// match, so the search starts there: at most that many bytes are tried per piece.
void WordPieceTokenizer::wordpiece(const std::string& word, std::size_t code_points, std::vector<int>& ids) const {
  if (code_points > static_cast<std::size_t>(options_.max_input_chars_per_word)) {
    ids.push_back(unk_id_);
    return;
  }
  const std::string& prefix = options_.continuing_subword_prefix;
  const std::size_t first = ids.size();
  std::string candidate;
  for (std::size_t start = 0; start < word.size();) {
    const std::size_t extra = start > 0 ? prefix.size() : 0;
    const std::size_t room = longest_token_bytes_ > extra ? longest_token_bytes_ - extra : 0;
    std::size_t end = std::min(word.size(), start + room);
    while (end > start && end < word.size() && (static_cast<unsigned char>(word[end]) & 0xC0) == 0x80) --end;
    int found = -1;
    while (end > start) {
      candidate.assign(start > 0 ? prefix : std::string());
      candidate.append(word, start, end - start);
      if (const auto it = ids_.find(candidate); it != ids_.end()) {
        found = it->second;
        break;
      }
      do --end;  // back one code point
      while (end > start && (static_cast<unsigned char>(word[end]) & 0xC0) == 0x80);
    }
    if (found < 0) {
      ids.resize(first);
      ids.push_back(unk_id_);
      return;
    }
    ids.push_back(found);
    start = end;
  }
}

Result<std::vector<int>> WordPieceTokenizer::encode(std::string_view text) const {
  if (Status ok = check_text(text, "text"); !ok) return ok.error_value();
  std::vector<int> ids;
  split_added(to_u32(text), false, ids);
  return ids;
}

Result<WordPieceEncoding> WordPieceTokenizer::encode_for_model(std::string_view text_a,
                                                               std::optional<std::string_view> text_b) const {
  const std::vector<TemplatePiece>& tmpl = text_b ? pair_ : single_;
  if (tmpl.empty())
    return Error("the tokenizer has no post-processor template and no " + quoted(options_.cls_token) + " / " +
                     quoted(options_.sep_token) + " tokens to make BERT's",
                 error_code::kInvalidArgument, "post_processor");
  Result<std::vector<int>> a = encode(text_a);
  if (!a) return a.error_value();
  std::vector<int> b_ids;
  if (text_b) {
    if (Status ok = check_text(*text_b, "text_b"); !ok) return ok.error_value();
    Result<std::vector<int>> b = encode(*text_b);
    if (!b) return b.error_value();
    b_ids = std::move(b).value();
  }
  WordPieceEncoding out;
  for (const TemplatePiece& piece : tmpl) {
    const std::vector<int>& part = piece.sequence < 0 ? piece.ids : piece.sequence == 0 ? a.value() : b_ids;
    out.ids.insert(out.ids.end(), part.begin(), part.end());
    out.token_type_ids.insert(out.token_type_ids.end(), part.size(), piece.type_id);
  }
  return out;
}

Result<std::vector<std::string>> WordPieceTokenizer::pieces(const std::vector<int>& ids) const {
  std::vector<std::string> out;
  out.reserve(ids.size());
  for (std::size_t i = 0; i < ids.size(); ++i) {
    const int id = ids[i];
    if (id >= 0 && static_cast<std::size_t>(id) < vocab_.size()) {
      out.push_back(vocab_[id]);
    } else if (const auto it = added_by_id_.find(id); it != added_by_id_.end()) {
      out.push_back(it->second);
    } else {
      return Error("ids[" + std::to_string(i) + "] = " + std::to_string(id) + " is not a token id",
                   error_code::kOutOfRange, "ids");
    }
  }
  return out;
}

Result<std::string> WordPieceTokenizer::decode(const std::vector<int>& ids, bool skip_special_tokens) const {
  Result<std::vector<std::string>> tokens = pieces(ids);
  if (!tokens) return tokens.error_value();
  std::string text;
  bool first = true;
  for (std::string& token : tokens.value()) {
    if (skip_special_tokens) {
      const auto it = added_ids_.find(token);
      const bool special =
          it != added_ids_.end() && std::any_of(added_.begin(), added_.end(),
                                                [&](const AddedToken& a) { return a.special && a.content == token; });
      if (special) continue;
    }
    if (!decoder_wordpiece_) {  // no decoder: the tokens joined by spaces
      if (!first) text += ' ';
      text += token;
      first = false;
      continue;
    }
    if (!first) {
      if (token.compare(0, decoder_prefix_.size(), decoder_prefix_) == 0)
        token.erase(0, decoder_prefix_.size());
      else
        token.insert(0, 1, ' ');
    }
    if (decoder_cleanup_) cleanup(token);
    text += token;
    first = false;
  }
  return text;
}

}  // namespace attention
