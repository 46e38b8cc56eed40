#pragma once
// Transformer layers in the layout of PyTorch's nn.TransformerEncoderLayer and
// nn.TransformerDecoderLayer (batch_first=True, dropout off).
//   post-LN (the paper):  x = norm1(x + self_attn(x));  x = norm2(x + ffn(x))
//   pre-LN (option):      x = x + self_attn(norm1(x));  x = x + ffn(norm2(x))
// The decoder adds cross-attention over the encoder output ("memory") between the
// two. Switches let a learner remove the residual connections, the scaling or the
// LayerNorms, change the FFN activation or put an activation after each attention
// sub-layer (after out_proj, before the residual add), and watch what happens.
// Without LayerNorm (layer_norm false) each norm is the identity: x + f(x) either way.
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "attention/backend.hpp"
#include "attention/linear.hpp"
#include "attention/multi_head.hpp"
#include "attention/norm.hpp"
#include "attention/result.hpp"
#include "attention/tensor.hpp"
#include "attention/trace.hpp"

namespace attention {

// GELU is exact (x * Phi(x), PyTorch's default); GELUTanh is F.gelu(approximate='tanh').
// None is the identity: the default of the activation after attention (no FFN choice).
enum class Activation { ReLU, GELU, GELUTanh, None, SiLU };
enum class NormPlacement { Post, Pre, Sandwich };  // Sandwich: pre and a norm on each sub-layer's output

// The settings' names of the FFN activations and the norm placements (the playground's
// and the ModelSpec's schemas share them).
inline std::vector<std::pair<std::string, Activation>> ffn_activation_choices() {
  return {{"relu", Activation::ReLU},
          {"gelu", Activation::GELU},
          {"gelu_tanh", Activation::GELUTanh},
          {"silu", Activation::SiLU}};
}
inline std::vector<std::pair<std::string, NormPlacement>> norm_placement_choices() {
  return {{"post", NormPlacement::Post}, {"pre", NormPlacement::Pre}, {"sandwich", NormPlacement::Sandwich}};
}

// linear2(activation(linear1(x))): (..., E) -> (..., F) -> (..., E), row by row.
// Gated: linear1 is (2F, E), rows [gate; up]: linear2(activation(gate x) * (up x)).
struct FeedForwardWeights {
  LinearWeights linear1;  // (F, E), or (2F, E) gated
  LinearWeights linear2;  // (E, F)
  bool gated = false;
};

// post_norm1/2: sandwich placement only (the norm on each sub-layer's output).
struct EncoderLayerWeights {
  MultiHeadWeights self_attn;
  FeedForwardWeights ffn;
  LayerNormWeights norm1, norm2;
  LayerNormWeights post_norm1, post_norm2;
};

struct DecoderLayerWeights {
  MultiHeadWeights self_attn;
  MultiHeadWeights cross_attn;
  FeedForwardWeights ffn;
  LayerNormWeights norm1, norm2, norm3;
  LayerNormWeights post_norm1, post_norm2, post_norm3;
};

struct LayerOptions {
  int heads = 1;
  int kv_heads = 0;  // MultiHeadOptions: H_kv (0 = heads), d_h (0 = E / heads), the scores' factor
  int head_dim = 0;
  float score_scale = 0.0f;
  // Self-attention only (cross-attention has none): RoPE, ALiBi, the sliding window.
  const RopeTable* rope = nullptr;
  bool alibi = false;
  int window = 0;
  bool scale = true;
  bool residual = true;
  Activation activation = Activation::ReLU;
  // Applied element by element to every attention sub-layer's output (B, Sq, E), after
  // out_proj and before the residual add and norm; None = no activation (PyTorch's layers).
  Activation attn_activation = Activation::None;
  bool layer_norm = true;  // false: the layer's norms are the identity (its LayerNormWeights unused)
  NormPlacement norm = NormPlacement::Post;
  // Self-attention heads switched off (MultiHeadOptions::ablated_heads); cross-attention keeps all.
  std::vector<int> ablated_heads;
  std::vector<int> ablated_rows;       // MultiHeadOptions::ablated_rows
  const Tensor* head_means = nullptr;  // MultiHeadOptions::head_means (H, S, d_h)
  // Batch rows (-1: every row) whose MLP output (B, S, E) is replaced: by 0, or by mlp_mean (S, E).
  std::vector<int> ablated_mlp_rows;
  const Tensor* mlp_mean = nullptr;
  Backend backend = Backend::Fast;
};

// x: (..., E) -> (..., E). Records ffn.hidden, ffn.activated (..., F) and ffn.output;
// gated: ffn.gate, ffn.up, ffn.activated (of the gate), ffn.product (..., F) and ffn.output.
// edit_output, if given, changes the output before it is recorded (MLP ablation).
Tensor feed_forward(const Tensor& x, const FeedForwardWeights& w, Activation activation, Backend backend,
                    const Recorder& recorder = {}, const std::function<void(Tensor&)>& edit_output = {});

// x: (B, S, E); key_padding: (B, S) 1 = padding, or null; causal for decoder-only
// stacks. -> (B, S, E)
Result<Tensor> encoder_layer(const Tensor& x, const EncoderLayerWeights& w, const LayerOptions& options,
                             const Tensor* key_padding, bool causal, const Recorder& recorder = {});

// A causal layer (encoder_layer with causal true, no padding mask) over a block of new rows
// whose self-attention reads and extends a KV cache: cached_self_attention (multi_head.hpp)
// with the same first, rows and block. x: (B, Sn, E) -> (B, Sn, E). Records nothing.
Result<Tensor> cached_layer(const Tensor& x, const EncoderLayerWeights& w, const LayerOptions& options,
                            const LayerKvCache& cache, const std::vector<int>& first, const std::vector<int>& rows,
                            CachedBlock& block);

// x: (B, St, E) target; memory: (B, Ss, E) encoder output. Self-attention is causal
// unless `causal` is false. -> (B, St, E)
Result<Tensor> decoder_layer(const Tensor& x, const Tensor& memory, const DecoderLayerWeights& w,
                             const LayerOptions& options, const Tensor* target_padding, const Tensor* memory_padding,
                             const Recorder& recorder = {}, bool causal = true);

// The activation of one value.
float activate(float x, Activation activation);
// Of every value in place: the fast kernels (GELU tanh, SiLU) with Backend::Fast, else activate().
void activate_all(std::vector<float>& values, Activation activation, Backend backend);

}  // namespace attention
