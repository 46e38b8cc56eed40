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
#include "attention/spec.hpp"

namespace attention {

enum class Mode { Encoder, Decoder, Cross };         // self-attention, causal self-attention, enc-dec
enum class Preset { Random, Identity, Positional };  // how the weights are made (presets.hpp)

struct ModelConfig {
  Mode mode = Mode::Encoder;
  int d_model = 64;
  int heads = 4;
  int kv_heads = 0;  // H_kv, key/value heads shared by groups of query heads; 0 = heads
  int layers = 2;
  int ffn_dim = 0;  // 0 = 4 * d_model
  std::uint32_t seed = 1;
  Preset preset = Preset::Random;
  bool scale = true;       // divide scores by sqrt(d_k)
  bool residual = true;    // residual connections around each sub-layer
  bool positional = true;  // give the model positions at all
  // Which positions when `positional` is on (the positional preset makes sinusoidal ones a
  // learned table holding the sinusoids). A separate setting so that the links, embeds and
  // API calls that say positional=false keep their meaning.
  Positions positions = Positions::Sinusoidal;
  int window = 0;  // sliding window of self-attention (0 = none)
  NormType norm_type = NormType::LayerNorm;
  FfnKind ffn = FfnKind::Standard;
  Activation activation = Activation::ReLU;
  NormPlacement norm = NormPlacement::Post;
  Backend backend = Backend::Fast;  // not a setting: which kernels run (tests pick the reference)

  int head_dim() const { return d_model / heads; }  // d_k
  int kv_head_count() const { return kv_heads > 0 ? kv_heads : heads; }
  // RoPE rotates pairs: an odd d_k rotates its first d_k - 1 dimensions (partial rotary).
  int rotary_dim() const { return head_dim() - head_dim() % 2; }
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
