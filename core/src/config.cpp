#include "attention/config.hpp"

#include <string>

namespace attention {

namespace {

Status check_range(const char* name, int value, int lo, int hi) {
  if (value < lo || value > hi)
    return Error{std::string(name) + " must be between " + std::to_string(lo) + " and " + std::to_string(hi) +
                 ", got " + std::to_string(value)};
  return Ok{};
}

}  // namespace

Status validate(const ModelConfig& c) {
  for (Status s : {check_range("d_model", c.d_model, 1, kMaxDModel), check_range("heads", c.heads, 1, kMaxHeads),
                   check_range("layers", c.layers, 1, kMaxLayers), check_range("ffn_dim", c.ffn_dim, 0, kMaxFfnDim)})
    if (!s) return s;
  if (c.d_model % c.heads != 0)
    return Error{"d_model " + std::to_string(c.d_model) + " is not divisible by heads " + std::to_string(c.heads) +
                 " (d_k = d_model / heads must be a whole number)"};
  if (c.preset == Preset::Positional && c.head_dim() < 2)
    return Error{"the positional preset needs d_k = d_model / heads of at least 2, got " +
                 std::to_string(c.head_dim())};
  if (c.preset == Preset::Positional && c.d_model < 4)
    return Error{"the positional preset needs d_model of at least 4, got " + std::to_string(c.d_model)};
  return Ok{};
}

bool operator==(const ModelConfig& a, const ModelConfig& b) {
  return a.mode == b.mode && a.d_model == b.d_model && a.heads == b.heads && a.layers == b.layers &&
         a.ffn_dim == b.ffn_dim && a.seed == b.seed && a.preset == b.preset && a.scale == b.scale &&
         a.residual == b.residual && a.positional == b.positional && a.activation == b.activation &&
         a.norm == b.norm && a.backend == b.backend;
}

std::size_t estimate_trace_floats(const ModelConfig& c, int batch, int seq, int source_seq) {
  const std::size_t b = static_cast<std::size_t>(batch), e = static_cast<std::size_t>(c.d_model);
  const std::size_t h = static_cast<std::size_t>(c.heads), f = static_cast<std::size_t>(c.ffn_width());
  const auto attention_block = [&](std::size_t sq, std::size_t sk) {
    // projections, splits, context, merged, output ~ 12 (B,S,E); scores..weights 4 (B,H,Sq,Sk); mask
    return 12 * b * (sq + sk) * e + 4 * b * h * sq * sk + b * sq * sk;
  };
  const auto layer = [&](std::size_t s, bool cross, std::size_t ss) {
    std::size_t n = attention_block(s, s) + 3 * b * s * f + 8 * b * s * e;
    if (cross) n += attention_block(s, ss) + 2 * b * s * e;
    return n;
  };
  const std::size_t s = static_cast<std::size_t>(seq), ss = static_cast<std::size_t>(source_seq);
  const std::size_t layers = static_cast<std::size_t>(c.layers);
  std::size_t total = layers * layer(s, c.mode == Mode::Cross, ss) + 4 * b * s * e;
  if (c.mode == Mode::Cross) total += layers * layer(ss, false, 0) + 4 * b * ss * e;
  return total;
}

const char* to_string(Mode mode) {
  switch (mode) {
    case Mode::Encoder: return "encoder";
    case Mode::Decoder: return "decoder";
    case Mode::Cross: return "cross";
  }
  return "?";
}

const char* to_string(Preset preset) {
  switch (preset) {
    case Preset::Random: return "random";
    case Preset::Identity: return "identity";
    case Preset::Positional: return "positional";
  }
  return "?";
}

}  // namespace attention
