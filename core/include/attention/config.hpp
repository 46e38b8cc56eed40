#pragma once
// The playground model's settings, their limits, and their validation. Every
// invalid combination is reported as an Error naming the setting and the value.
#include <cstddef>
#include <cstdint>

#include "attention/backend.hpp"
#include "attention/layers.hpp"
#include "attention/result.hpp"

namespace attention {

enum class Mode { Encoder, Decoder, Cross };          // self-attention, causal self-attention, enc-dec
enum class Preset { Random, Identity, Positional };    // how the weights are made (presets.hpp)

struct ModelConfig {
  Mode mode = Mode::Encoder;
  int d_model = 64;
  int heads = 4;
  int layers = 2;
  int ffn_dim = 0;  // 0 = 4 * d_model
  std::uint32_t seed = 1;
  Preset preset = Preset::Random;
  bool scale = true;       // divide scores by sqrt(d_k)
  bool residual = true;    // residual connections around each sub-layer
  bool positional = true;  // add sinusoidal positional encoding
  Activation activation = Activation::ReLU;
  NormPlacement norm = NormPlacement::Post;
  Backend backend = Backend::Fast;

  int head_dim() const { return d_model / heads; }  // d_k
  int ffn_width() const { return ffn_dim == 0 ? 4 * d_model : ffn_dim; }
};

inline constexpr int kMaxDModel = 1024;
inline constexpr int kMaxHeads = 64;
inline constexpr int kMaxLayers = 12;
inline constexpr int kMaxFfnDim = 4096;
// Largest trace a forward pass may build, in floats (256 MiB). Checked before
// anything is allocated.
inline constexpr std::size_t kMaxTraceFloats = std::size_t{64} << 20;

Status validate(const ModelConfig& config);

bool operator==(const ModelConfig& a, const ModelConfig& b);
inline bool operator!=(const ModelConfig& a, const ModelConfig& b) { return !(a == b); }

// Floats the trace of one forward pass will hold for B sequences of S tokens
// (and Ss source tokens in cross mode); an upper estimate.
std::size_t estimate_trace_floats(const ModelConfig& config, int batch, int seq, int source_seq);

const char* to_string(Mode mode);
const char* to_string(Preset preset);

}  // namespace attention
