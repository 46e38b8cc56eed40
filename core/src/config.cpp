#include "attention/config.hpp"

#include "attention/tokenizer.hpp"

namespace attention {

const Schema<ModelConfig>& playground_schema() {
  using C = ModelConfig;
  static const Schema<ModelConfig> schema{
      {
          choice_field("mode", &C::mode,
                       {{"encoder", Mode::Encoder}, {"decoder", Mode::Decoder}, {"cross", Mode::Cross}},
                       "Encoder self-attention, decoder (causal) self-attention, or an encoder–decoder with "
                       "cross-attention from the target sentences to the source sentences."),
          int_field("dModel", &C::d_model, 1, 1024, "Width of every token vector (E)."),
          int_field("heads", &C::heads, 1, 64, "H; each head gets d_k = d_model / H dimensions."),
          int_field("kvHeads", &C::kv_heads, 0, 64,
                    "Key/value heads (H_kv): groups of heads / kvHeads query heads share one K and V "
                    "(grouped-query attention; 1 = multi-query); 0 = one per head."),
          int_field("layers", &C::layers, 1, 12, "Layers per stack."),
          int_field("window", &C::window, 0, kMaxTokensPerText,
                    "Sliding window: query i sees only keys j with i − window < j (self-attention; 0 = none)."),
          int_field("ffnDim", &C::ffn_dim, 0, 4096, "Width of the feed-forward layer; 0 = 4 × d_model."),
          uint_field("seed", &C::seed, "Weights and token vectors are drawn from it (untrained)."),
          choice_field("preset", &C::preset,
                       {{"random", Preset::Random}, {"identity", Preset::Identity}, {"positional", Preset::Positional}},
                       "Random (Xavier) weights; identity projections, so heads attend by similarity; or heads built "
                       "to attend by position (previous, next, self, first)."),
          bool_field("scale", &C::scale, "Divide the scores by √d_k."),
          bool_field("residual", &C::residual, "Residual connections around each sub-layer."),
          bool_field("positional", &C::positional, "Give the model positions (the kind: Positions)."),
          choice_field("positions", &C::positions,
                       {{"sinusoidal", Positions::Sinusoidal}, {"rope", Positions::Rope}, {"alibi", Positions::Alibi}},
                       "How positions enter: sinusoids added to the token vectors, q and k turned by position "
                       "inside attention (rope), or a per-head penalty on distant keys added to the scores (alibi)."),
          choice_field("activation", &C::activation, ffn_activation_choices(),
                       "The feed-forward activation (silu: x · sigmoid(x))."),
          choice_field("ffn", &C::ffn, {{"standard", FfnKind::Standard}, {"gated", FfnKind::Gated}},
                       "The feed-forward layer: linear2(act(linear1 x)), or gated: down(act(gate x) · up x) "
                       "(SwiGLU with silu)."),
          choice_field("norm", &C::norm, norm_placement_choices(),
                       "LayerNorm after each residual addition (post, the paper), before each sub-layer (pre), or "
                       "before each sub-layer and on its output before the addition (sandwich, Gemma)."),
          choice_field("normType", &C::norm_type, {{"layernorm", NormType::LayerNorm}, {"rmsnorm", NormType::RmsNorm}},
                       "LayerNorm (subtract the mean, divide by the deviation) or RMSNorm (divide by the root mean "
                       "square: the mean stays)."),
      },
      {
          {"divides", "heads", "heads", "dModel", 0, "", "", error_code::kNotDivisible,
           "heads ({heads}) must divide dModel ({dModel}): d_k = dModel / heads must be a whole number"},
          {"divides", "kvHeads", "kvHeads", "heads", 0, "", "", error_code::kNotDivisible,
           "kvHeads ({kvHeads}) must divide heads ({heads}): each key/value head serves a whole group of query heads"},
          {"atLeast", "positions", "dModel", "heads", 2, "positions", "rope", error_code::kOutOfRange,
           "RoPE turns pairs of dimensions: it needs d_k = dModel / heads of at least 2 (dModel {dModel}, heads "
           "{heads})"},
          {"atLeast", "preset", "dModel", "heads", 2, "preset", "positional", error_code::kOutOfRange,
           "the positional preset needs d_k = dModel / heads of at least 2 (dModel {dModel}, heads {heads})"},
          {"atLeast", "dModel", "dModel", "", 4, "preset", "positional", error_code::kOutOfRange,
           "the positional preset needs dModel of at least 4, got {dModel}"},
      }};
  return schema;
}

Status validate(const ModelConfig& c) { return check(playground_schema(), c); }

bool operator==(const ModelConfig& a, const ModelConfig& b) {
  return a.backend == b.backend && same_settings(playground_schema(), a, b);
}

const char* to_string(Mode mode) {
  switch (mode) {
    case Mode::Encoder:
      return "encoder";
    case Mode::Decoder:
      return "decoder";
    case Mode::Cross:
      return "cross";
  }
  return "?";
}

const char* to_string(Preset preset) {
  switch (preset) {
    case Preset::Random:
      return "random";
    case Preset::Identity:
      return "identity";
    case Preset::Positional:
      return "positional";
  }
  return "?";
}

}  // namespace attention
