#pragma once
// The playground's settings: how the untrained playground model is made from the
// texts a learner types. Declared once in playground_schema() (settings.hpp); the
// factory in model.hpp turns a config into a ModelSpec and fills its parameters.
#include <cstddef>
#include <cstdint>

#include "attention/backend.hpp"
#include "attention/layers.hpp"
#include "attention/result.hpp"
#include "attention/settings.hpp"

namespace attention {

enum class Mode { Encoder, Decoder, Cross };         // self-attention, causal self-attention, enc-dec
enum class Preset { Random, Identity, Positional };  // how the weights are made (presets.hpp)

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
  bool positional = true;  // add positional encoding
  Activation activation = Activation::ReLU;
  NormPlacement norm = NormPlacement::Post;
  Backend backend = Backend::Fast;  // not a setting: which kernels run (tests pick the reference)

  int head_dim() const { return d_model / heads; }  // d_k
  int ffn_width() const { return ffn_dim == 0 ? 4 * d_model : ffn_dim; }
};

// Every setting with its range, help text and rules; the single declaration.
const Schema<ModelConfig>& playground_schema();

Status validate(const ModelConfig& config);

bool operator==(const ModelConfig& a, const ModelConfig& b);
inline bool operator!=(const ModelConfig& a, const ModelConfig& b) { return !(a == b); }

const char* to_string(Mode mode);
const char* to_string(Preset preset);

}  // namespace attention
