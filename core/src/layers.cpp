#include "attention/layers.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "attention/grad_ops.hpp"
#include "kernels/kernels.hpp"

namespace attention {

namespace {

// a + b into b's buffer (no copy of a: one allocation less a sub-layer), named as a; the same
// floats as a copy of a with b added (float addition is commutative).
Tensor add_into(const Tensor& a, Tensor b) {
  for (std::size_t i = 0; i < b.size(); ++i) b.data[i] = a.data[i] + b.data[i];
  if (b.axes != a.axes) b.axes = a.axes;
  return b;
}

// One residual sub-block, in any norm placement:
//   post: norm(x + f(x))   pre: x + f(norm(x))   sandwich: x + post_norm(f(norm(x)))
//   (without residual: drop the "x +")
// Without LayerNorm, norm is the identity and its stage is not recorded.
template <class Sublayer>
Result<Tensor> sublayer(const Tensor& x, const LayerNormWeights& norm, const LayerNormWeights& post_norm,
                        const LayerOptions& options, const Recorder& recorder, int index, Sublayer&& f) {
  const StageId norm_stage = index == 1 ? StageId::Norm1 : index == 2 ? StageId::Norm2 : StageId::Norm3;
  const StageId post_stage = index == 1 ? StageId::PostNorm1 : index == 2 ? StageId::PostNorm2 : StageId::PostNorm3;
  const StageId residual_stage = index == 1 ? StageId::Residual1 : index == 2 ? StageId::Residual2 : StageId::Residual3;
  const bool sandwich = options.norm == NormPlacement::Sandwich && options.layer_norm;
  const bool pre = (options.norm == NormPlacement::Pre || sandwich) && options.layer_norm;
  const bool post = options.norm == NormPlacement::Post && options.layer_norm;
  Tensor normed;
  if (pre) {
    normed = layer_norm(x, norm);
    recorder.record(norm_stage, normed);
  }
  Result<Tensor> out = f(pre ? normed : x);
  if (!out) return out;
  if (sandwich) {
    out = layer_norm(out.value(), post_norm);
    recorder.record(post_stage, out.value());
  }
  Tensor y = options.residual ? add_into(x, std::move(out.value())) : std::move(out.value());
  if (options.residual) recorder.record(residual_stage, y);
  if (post) {
    y = layer_norm(y, norm);
    recorder.record(norm_stage, y);
  }
  return y;
}

// The attention options of a layer's self- or cross-attention.
MultiHeadOptions attention_options(const LayerOptions& options, const Tensor* key_padding, bool causal,
                                   const std::vector<int>& ablated_heads, bool self_attention) {
  MultiHeadOptions mha;
  mha.ablated_heads = ablated_heads;
  if (self_attention && !ablated_heads.empty()) {
    mha.ablated_rows = options.ablated_rows;
    mha.head_means = options.head_means;
  }
  mha.heads = options.heads;
  mha.kv_heads = options.kv_heads;
  mha.head_dim = options.head_dim;
  mha.score_scale = options.score_scale;
  if (self_attention) {
    mha.rope = options.rope;
    mha.alibi = options.alibi;
    mha.window = options.window;
  }
  mha.scale = options.scale;
  mha.causal = causal;
  mha.key_padding_mask = key_padding;
  mha.backend = options.backend;
  mha.need_weights = false;  // the layers keep what the recorder asks for, nothing more
  return mha;
}

// The attention sub-layer's output (B, Sq, E) after the optional activation.
Result<Tensor> activated(Result<Tensor> r, const LayerOptions& options, const Recorder& recorder) {
  if (!r) return r;
  Tensor out = std::move(r.value());
  if (options.attn_activation != Activation::None) {
    for (float& v : out.data) v = activate(v, options.attn_activation);
    recorder.record(StageId::AttnActivated, out);
  }
  return out;
}

Result<Tensor> attention_block(const Tensor& query, const Tensor& key_value, const MultiHeadWeights& w,
                               const LayerOptions& options, const Tensor* key_padding, bool causal,
                               const Recorder& recorder, const std::vector<int>& ablated_heads = {},
                               bool self_attention = true) {
  const MultiHeadOptions mha = attention_options(options, key_padding, causal, ablated_heads, self_attention);
  Result<MultiHeadResult> r = multi_head_attention(query, key_value, key_value, w, mha, recorder);
  if (!r) return r.error_value();
  return activated(std::move(r.value().output), options, recorder);  // (B, Sq, E), recorded as "output"
}

}  // namespace

float activate(float x, Activation activation) {
  switch (activation) {
    case Activation::ReLU:
      return x > 0.0f ? x : 0.0f;
    case Activation::GELU:  // exact, x * Phi(x), as PyTorch's default (approximate='none')
      return 0.5f * x * (1.0f + std::erf(x * 0.70710678118654752f));
    case Activation::GELUTanh:
      return kernels::gelu_tanh(x);
    case Activation::None:
      return x;
    case Activation::SiLU:
      return kernels::silu(x);
  }
  return x;
}

void activate_all(std::vector<float>& values, Activation activation, Backend backend) {
  if (backend == Backend::Fast && activation == Activation::GELUTanh)
    kernels::fastest_gelu_tanh().fn(values.data(), values.size());
  else if (backend == Backend::Fast && activation == Activation::SiLU)
    kernels::fastest_silu().fn(values.data(), values.size());
  else
    for (float& v : values) v = activate(v, activation);
}

namespace {
// out (B, S, E): the listed rows (-1: every row) become 0 or mean (S, E).
void ablate_mlp(Tensor& out, const std::vector<int>& rows, const Tensor* mean) {
  const int batch = out.shape[0];
  const std::size_t block = out.size() / static_cast<std::size_t>(batch);  // (S, E)
  for (int row : rows)
    for (int b = row < 0 ? 0 : row; b < (row < 0 ? batch : row + 1); ++b) {
      float* dst = out.ptr() + static_cast<std::size_t>(b) * block;
      if (mean)
        std::copy_n(mean->ptr(), block, dst);
      else
        std::fill_n(dst, block, 0.0f);
    }
}
}  // namespace

Tensor feed_forward(const Tensor& x, const FeedForwardWeights& w, Activation activation, Backend backend,
                    const Recorder& recorder, const std::function<void(Tensor&)>& edit_output) {
  if (w.gated) {
    // [gate; up] = x W1^T: (..., 2F), then linear2(act(gate) * up).
    const Tensor both = linear(x, w.linear1, "F", backend);
    const int f = w.linear2.in_features;
    const std::size_t rows = both.size() / (2 * static_cast<std::size_t>(f));
    std::vector<int> shape = both.shape;
    shape.back() = f;
    Tensor gate(both.axes, shape), up(both.axes, shape);
    for (std::size_t r = 0; r < rows; ++r) {
      std::copy_n(both.ptr() + r * 2 * f, f, gate.ptr() + r * f);
      std::copy_n(both.ptr() + r * 2 * f + f, f, up.ptr() + r * f);
    }
    recorder.record(StageId::FfnGate, gate);
    recorder.record(StageId::FfnUp, up);
    Tensor activated = std::move(gate);
    activate_all(activated.data, activation, backend);
    recorder.record(StageId::FfnActivated, activated);
    Tensor product = std::move(activated);
    for (std::size_t i = 0; i < product.size(); ++i) product.data[i] *= up.data[i];
    recorder.record(StageId::FfnProduct, product);
    Tensor out = linear(product, w.linear2, x.axes.back(), backend);
    if (edit_output) edit_output(out);
    recorder.record(StageId::FfnOutput, out);
    return out;
  }
  Tensor hidden = linear(x, w.linear1, "F", backend);
  recorder.record(StageId::FfnHidden, hidden);
  activate_all(hidden.data, activation, backend);
  recorder.record(StageId::FfnActivated, hidden);
  Tensor out = linear(hidden, w.linear2, x.axes.back(), backend);
  if (edit_output) edit_output(out);
  recorder.record(StageId::FfnOutput, out);
  return out;
}

Result<Tensor> encoder_layer(const Tensor& x, const EncoderLayerWeights& w, const LayerOptions& options,
                             const Tensor* key_padding, bool causal, const Recorder& recorder) {
  Result<Tensor> h = sublayer(x, w.norm1, w.post_norm1, options, recorder, 1, [&](const Tensor& in) {
    return attention_block(in, in, w.self_attn, options, key_padding, causal, recorder.child(kSelfAttention),
                           options.ablated_heads);
  });
  if (!h) return h;
  return sublayer(h.value(), w.norm2, w.post_norm2, options, recorder, 2, [&](const Tensor& in) -> Result<Tensor> {
    if (options.ablated_mlp_rows.empty()) return feed_forward(in, w.ffn, options.activation, options.backend, recorder);
    return feed_forward(in, w.ffn, options.activation, options.backend, recorder,
                        [&](Tensor& out) { ablate_mlp(out, options.ablated_mlp_rows, options.mlp_mean); });
  });
}

Result<Tensor> decoder_layer(const Tensor& x, const Tensor& memory, const DecoderLayerWeights& w,
                             const LayerOptions& options, const Tensor* target_padding, const Tensor* memory_padding,
                             const Recorder& recorder, bool causal) {
  Result<Tensor> h = sublayer(x, w.norm1, w.post_norm1, options, recorder, 1, [&](const Tensor& in) {
    return attention_block(in, in, w.self_attn, options, target_padding, causal, recorder.child(kSelfAttention),
                           options.ablated_heads);
  });
  if (!h) return h;
  h = sublayer(h.value(), w.norm2, w.post_norm2, options, recorder, 2, [&](const Tensor& in) {
    return attention_block(in, memory, w.cross_attn, options, memory_padding, false, recorder.child(kCrossAttention),
                           {}, /*self_attention=*/false);
  });
  if (!h) return h;
  return sublayer(h.value(), w.norm3, w.post_norm3, options, recorder, 3, [&](const Tensor& in) -> Result<Tensor> {
    return feed_forward(in, w.ffn, options.activation, options.backend, recorder);
  });
}

}  // namespace attention

namespace attention {

Result<Tensor> cached_layer(const Tensor& x, const EncoderLayerWeights& w, const LayerOptions& options,
                            const LayerKvCache& cache, const std::vector<int>& first, const std::vector<int>& rows,
                            CachedBlock& block) {
  const Recorder none;
  Result<Tensor> h = sublayer(x, w.norm1, w.post_norm1, options, none, 1, [&](const Tensor& in) {
    const MultiHeadOptions mha = attention_options(options, nullptr, true, options.ablated_heads, true);
    return activated(cached_self_attention(in, w.self_attn, mha, cache, first, rows, block), options, none);
  });
  if (!h) return h;
  return sublayer(h.value(), w.norm2, w.post_norm2, options, none, 2, [&](const Tensor& in) -> Result<Tensor> {
    return feed_forward(in, w.ffn, options.activation, options.backend, none);
  });
}

}  // namespace attention
