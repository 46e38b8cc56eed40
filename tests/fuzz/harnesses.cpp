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

#include "attention/config.hpp"
#include "attention/model.hpp"
#include "attention/safetensors.hpp"
#include "attention/tokenizer.hpp"

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

}  // namespace attention::fuzz
