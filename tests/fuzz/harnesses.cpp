#include "harnesses.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <string>
#include <string_view>
#include <vector>

#include "attention/bpe_tokenizer.hpp"
#include "attention/config.hpp"
#include "attention/model.hpp"
#include "attention/safetensors.hpp"
#include "attention/tokenizer.hpp"
#include "attention/wordpiece_tokenizer.hpp"

namespace attention::fuzz {

namespace {

[[noreturn]] void violated(const char* what) {
  std::fprintf(stderr, "fuzz invariant violated: %s\n", what);
  std::abort();
}

// Reads fuzz bytes as small integers, then hands over the rest as text.
class Reader {
 public:
  Reader(const std::uint8_t* data, std::size_t size) : data_(data), size_(size) {}
  std::uint8_t byte() { return pos_ < size_ ? data_[pos_++] : 0; }
  std::int32_t int32() {
    std::uint32_t v = 0;
    for (int i = 0; i < 4; ++i) v = (v << 8) | byte();
    return static_cast<std::int32_t>(v);
  }
  std::string rest() {
    std::string text(reinterpret_cast<const char*>(data_ + pos_), size_ - std::min(pos_, size_));
    pos_ = size_;
    return text;
  }

 private:
  const std::uint8_t* data_;
  std::size_t size_;
  std::size_t pos_ = 0;
};

// The model's on/off settings from the bits of one fuzz byte.
void set_switches(std::uint8_t flags, ModelConfig& c) {
  c.scale = flags & 1;
  c.residual = flags & 2;
  c.positional = flags & 4;
  c.activation = (flags & 8) ? ((flags & 32) ? Activation::GELUTanh : Activation::GELU) : Activation::ReLU;
  c.norm = (flags & 16) ? NormPlacement::Pre : NormPlacement::Post;
}

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= text.size(); ++i)
    if (i == text.size() || text[i] == separator) {
      parts.push_back(text.substr(start, i - start));
      start = i + 1;
    }
  return parts;
}

void check_trace(const Trace& trace) {
  for (const Stage& stage : trace.stages) {
    const bool masked = stage.name.size() >= 7 && stage.name.compare(stage.name.size() - 7, 7, ".masked") == 0;
    for (float v : stage.tensor.data)
      if (std::isnan(v) || (!masked && std::isinf(v))) violated(("non-finite value in " + stage.name).c_str());
    const bool weights = stage.name.size() >= 8 && stage.name.compare(stage.name.size() - 8, 8, ".weights") == 0;
    if (!weights) continue;
    const int keys = stage.tensor.shape.back();
    for (std::size_t row = 0; row < stage.tensor.size() / static_cast<std::size_t>(keys); ++row) {
      double sum = 0;
      for (int j = 0; j < keys; ++j) sum += stage.tensor.data[row * keys + j];
      if (std::fabs(sum - 1.0) > 1e-4 && sum != 0.0) violated("a row of weights sums to neither 1 nor 0");
    }
  }
}

template <class T>
void check_error(const Result<T>& r) {
  if (r.error().empty()) violated("an error without a message");
  if (std::none_of(std::begin(kErrorCodes), std::end(kErrorCodes),
                   [&r](const char* code) { return r.error_value().code == code; }))
    violated("an error with an unknown code");
}

bool valid_utf8(std::string_view text) {
  // The encoders refuse invalid UTF-8; this says whether they should have.
  for (std::size_t i = 0; i < text.size();) {
    const auto b = static_cast<unsigned char>(text[i]);
    const int n = b < 0x80 ? 1 : (b >> 5) == 6 ? 2 : (b >> 4) == 14 ? 3 : (b >> 3) == 30 ? 4 : 0;
    if (n == 0 || i + n > text.size()) return false;
    char32_t c = n == 1 ? b : n == 2 ? (b & 0x1F) : n == 3 ? (b & 0x0F) : (b & 0x07);
    for (int k = 1; k < n; ++k) {
      const auto next = static_cast<unsigned char>(text[i + k]);
      if ((next & 0xC0) != 0x80) return false;
      c = (c << 6) | (next & 0x3F);
    }
    const char32_t least[] = {0, 0, 0x80, 0x800, 0x10000};
    if (c < least[n] || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF)) return false;
    i += n;
  }
  return true;
}

// WordPiece on text: known ids, pieces and decoding succeed, the model input is
// [CLS] ids [SEP], the same text gives the same ids.
void check_wordpiece_encode(const WordPieceTokenizer& t, std::string_view text) {
  const Result<std::vector<int>> ids = t.encode(text);
  if (!ids) {
    check_error(ids);
    if (valid_utf8(text) && text.size() <= WordPieceTokenizer::kMaxTextBytes) violated("WordPiece refused valid text");
    return;
  }
  if (!valid_utf8(text)) violated("WordPiece encoded invalid UTF-8");
  if (ids.value().size() > text.size()) violated("more WordPiece ids than bytes of text");
  const Result<std::vector<std::string>> pieces = t.pieces(ids.value());
  if (!pieces) violated("WordPiece gave an id without a token");
  for (const std::string& piece : pieces.value())
    if (piece.empty()) violated("an empty WordPiece token");
  if (!t.decode(ids.value()) || !t.decode(ids.value(), true)) violated("WordPiece ids that do not decode");
  if (t.encode(text).value() != ids.value()) violated("WordPiece encode is not deterministic");
  // The model input holds the text's ids and one token type per id.
  const Result<WordPieceEncoding> model = t.encode_for_model(text);
  if (model) {
    if (model.value().ids.size() < ids.value().size()) violated("encode_for_model lost ids");
    if (model.value().token_type_ids.size() != model.value().ids.size())
      violated("token types and ids differ in length");
  } else if (t.cls_id() && t.sep_id()) {
    violated("encode_for_model failed where encode did not");
  }
}

const WordPieceTokenizer& fixed_wordpiece(bool lowercase) {
  static const auto make = [](bool lower) {
    WordPieceOptions o;
    o.lowercase = lower;
    auto t = WordPieceTokenizer::from_vocab_txt(
        "[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\nthe\ncat\na\n##a\nb\n##b\n,\n.\n!\nun\n##able\n\xC3\xA9\n##\xC3\xA9\n"
        "\xE4\xB8\xAD\n\xE1\x84\x92\n##\xE1\x85\xA1\n##\xE1\x86\xAB\n",
        o);
    if (!t) violated(("the fixed WordPiece vocabulary does not load: " + t.error()).c_str());
    return std::move(t).value();
  };
  static const WordPieceTokenizer uncased = make(true), cased = make(false);
  return lowercase ? uncased : cased;
}

// A byte-level BPE vocabulary: the 256 byte tokens and a few merges.
Gpt2BpeTokenizer& fixed_gpt2() {
  static Gpt2BpeTokenizer tokenizer = [] {
    std::vector<std::pair<std::string, int>> vocab;
    std::vector<char32_t> map(256);
    char32_t next = 256;
    for (int b = 0; b < 256; ++b) {
      const bool printable = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
      map[b] = printable ? static_cast<char32_t>(b) : next++;
    }
    for (int b = 0; b < 256; ++b) {
      std::string s;
      const char32_t c = map[b];
      if (c < 0x80)
        s += static_cast<char>(c);
      else {
        s += static_cast<char>(0xC0 | (c >> 6));
        s += static_cast<char>(0x80 | (c & 0x3F));
      }
      vocab.emplace_back(s, b);
    }
    vocab.emplace_back("th", 256);
    vocab.emplace_back("the", 257);
    vocab.emplace_back("\xC4\xA0the", 258);  // "Ġthe"
    auto t = Gpt2BpeTokenizer::create(vocab, {{"t", "h"}, {"th", "e"}, {"\xC4\xA0", "the"}});
    if (!t) violated(("the fixed GPT-2 vocabulary does not load: " + t.error()).c_str());
    return std::move(t).value();
  }();
  return tokenizer;
}

}  // namespace

void tokenizer(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  Result<std::vector<std::string>> tokens = tokenize(text);
  if (!tokens) return;
  if (static_cast<int>(tokens.value().size()) > kMaxTokensPerText) violated("more tokens than the maximum");
  std::size_t at = 0;
  for (const std::string& token : tokens.value()) {
    if (token.empty()) violated("empty token");
    const std::size_t found = text.find(token, at);
    if (found == std::string_view::npos) violated("token not found in order in the text");
    at = found + token.size();
  }
  if (tokenize(text).value() != tokens.value()) violated("tokenize is not deterministic");
}

void config(const std::uint8_t* data, std::size_t size) {
  Reader in(data, size);
  ModelConfig c;
  c.mode = static_cast<Mode>(in.byte() % 3);
  c.d_model = in.int32();
  c.heads = in.int32();
  c.layers = in.int32();
  c.ffn_dim = in.int32();
  c.seed = static_cast<std::uint32_t>(in.int32());
  c.preset = static_cast<Preset>(in.byte() % 3);
  set_switches(in.byte(), c);
  if (!validate(c)) return;
  if (c.head_dim() * c.heads != c.d_model) violated("validated config with d_model not divisible by heads");
  ModelSpec spec = playground_spec(c);
  spec.vocab_size = 8;
  if (estimate_forward_floats(spec, 1, 3, 3, true) > double(1 << 20)) return;  // keep each run fast
  Result<Trace> r = run_model(c, {"the cat sat"}, {"le chat"});
  if (!r) violated(("validated config failed to run: " + r.error()).c_str());
  check_trace(r.value());
}

void forward(const std::uint8_t* data, std::size_t size) {
  Reader in(data, size);
  ModelConfig c;
  c.mode = static_cast<Mode>(in.byte() % 3);
  c.heads = 1 + in.byte() % 4;
  c.d_model = c.heads * (1 + in.byte() % 8);
  c.layers = 1 + in.byte() % 2;
  c.preset = static_cast<Preset>(in.byte() % 3);
  set_switches(in.byte(), c);
  c.seed = in.byte();
  // Text: sentences separated by '\n'; in cross mode "target\tsource" per line.
  std::vector<std::string> texts, sources;
  for (const std::string& line : split(in.rest(), '\n')) {
    const std::vector<std::string> parts = split(line, '\t');
    texts.push_back(parts[0]);
    sources.push_back(parts.size() > 1 ? parts[1] : parts[0]);
  }
  Result<Trace> r = run_model(c, texts, sources);
  if (!r) {
    if (r.error().empty()) violated("an error without a message");
    if (r.error_value().code.empty()) violated("an error without a code");
    return;
  }
  check_trace(r.value());
}

void safetensors(const std::uint8_t* data, std::size_t size) {
  namespace st = attention::safetensors;
  const Result<st::File> r = st::read(data, size);
  if (!r) {
    if (r.error().empty()) violated("an error without a message");
    if (std::none_of(std::begin(kErrorCodes), std::end(kErrorCodes),
                     [&r](const char* code) { return r.error_value().code == code; }))
      violated("an error with an unknown code");
    return;
  }
  const st::File& file = r.value();
  std::vector<st::TensorRef> refs;
  for (const st::Tensor& t : file.tensors) {
    std::uint64_t count = 1;
    for (int dim : t.shape) {
      if (dim < 0) violated("a negative dimension");
      count *= static_cast<std::uint64_t>(dim);  // wraps only for shapes the reader refused
    }
    if (t.values.size() != count) violated("values.size() is not the shape's element count");
    for (float v : t.values)
      if (!std::isfinite(v)) violated("a non-finite value read");
    if (t.name.empty()) violated("a tensor with an empty name");
    refs.push_back({t.name, t.shape, t.values.data()});
  }
  const std::vector<std::uint8_t> bytes = st::write(refs, file.metadata);
  std::uint64_t header = 0;
  for (int i = 7; i >= 0; --i) header = (header << 8) | bytes[i];
  if (header % 8 != 0) violated("the written header is not padded to a multiple of 8");
  const Result<st::File> again = st::read(bytes.data(), bytes.size());
  if (!again) violated(("a written file does not read back: " + again.error()).c_str());
  const st::File& back = again.value();
  if (back.metadata != file.metadata) violated("metadata changed in the round trip");
  if (back.tensors.size() != file.tensors.size()) violated("tensor count changed in the round trip");
  for (std::size_t i = 0; i < back.tensors.size(); ++i) {
    const st::Tensor& a = file.tensors[i];
    const st::Tensor& b = back.tensors[i];
    if (b.name != a.name || b.shape != a.shape) violated("a name, shape or the order changed in the round trip");
    if (b.dtype != st::DType::F32) violated("the writer wrote another dtype than F32");
    if (b.values.size() != a.values.size() ||
        (!a.values.empty() && std::memcmp(a.values.data(), b.values.data(), a.values.size() * sizeof(float)) != 0))
      violated("values changed in the round trip");
  }
}

void pretrained_tokenizers(const std::uint8_t* data, std::size_t size) {
  Reader in(data, size);
  const std::uint8_t mode = in.byte();
  const std::string rest = in.rest();
  switch (mode % 6) {
    case 0: {  // GPT-2 from tokenizer.json
      const Result<Gpt2BpeTokenizer> t = Gpt2BpeTokenizer::from_tokenizer_json(rest);
      if (!t) return check_error(t);
      Gpt2BpeTokenizer copy = t.value();
      const Result<std::vector<int>> ids = copy.encode("the cat sat, \xC3\xA9 \xF0\x9F\x98\x80");
      if (!ids) violated("a loaded GPT-2 tokenizer refused valid text");
      if (!copy.decode(ids.value())) violated("GPT-2 ids that do not decode");
      return;
    }
    case 1: {  // GPT-2 from vocab.json + merges.txt, split at the first NUL
      const std::size_t cut = std::min(rest.find('\0'), rest.size());
      const Result<Gpt2BpeTokenizer> t =
          Gpt2BpeTokenizer::from_vocab_and_merges(rest.substr(0, cut), cut < rest.size() ? rest.substr(cut + 1) : "");
      if (!t) return check_error(t);
      return;
    }
    case 2: {  // WordPiece from tokenizer.json
      const Result<WordPieceTokenizer> t = WordPieceTokenizer::from_tokenizer_json(rest);
      if (!t) return check_error(t);
      check_wordpiece_encode(t.value(), "Hello, [MASK] w\xC3\xB6rld \xE4\xB8\xAD\xE6\x96\x87 don't!");
      return;
    }
    case 3: {  // WordPiece from vocab.txt, options from the mode byte
      WordPieceOptions o;
      o.lowercase = mode & 8;
      if (mode & 16) o.strip_accents = (mode & 32) != 0;
      o.tokenize_chinese_chars = mode & 64;
      const Result<WordPieceTokenizer> t = WordPieceTokenizer::from_vocab_txt(rest, o);
      if (!t) return check_error(t);
      check_wordpiece_encode(t.value(), "Hello, [MASK] w\xC3\xB6rld \xE4\xB8\xAD\xE6\x96\x87 don't!");
      return;
    }
    case 4:  // WordPiece on text
      return check_wordpiece_encode(fixed_wordpiece(mode & 8), rest);
    case 5: {  // GPT-2 on text: byte-level, so decoding gives valid text back exactly
      Gpt2BpeTokenizer& t = fixed_gpt2();
      const Result<std::vector<int>> ids = t.encode(rest);
      if (!ids) {
        check_error(ids);
        if (valid_utf8(rest)) violated("GPT-2 refused valid text");
        return;
      }
      if (!valid_utf8(rest)) violated("GPT-2 encoded invalid UTF-8");
      const Result<std::string> back = t.decode(ids.value());
      if (!back || back.value() != rest) violated("GPT-2 decode(encode(text)) != text");
      return;
    }
  }
}

}  // namespace attention::fuzz
