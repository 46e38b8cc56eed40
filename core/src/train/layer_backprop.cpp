#include "src/train/layer_backprop.hpp"

#include <cmath>

#include "attention/attention.hpp"
#include "attention/masks.hpp"
#include "attention/multi_head.hpp"

namespace attention::train {

namespace {

Tensor as_heads(Floats x, int batch, int seq, int heads) {  // (B, S, E) -> (B, H, S, d_k)
  const int e = static_cast<int>(x.size() / (static_cast<std::size_t>(batch) * seq));
  return split_heads(Tensor({"B", "S", "E"}, {batch, seq, e}, std::move(x)), heads);
}
Floats from_heads(const Floats& x, int batch, int heads, int seq) {  // (B, H, S, d_k) -> (B, S, E)
  const int dk = static_cast<int>(x.size() / (static_cast<std::size_t>(batch) * heads * seq));
  return merge_heads(Tensor({"B", "H", "S", "d_k"}, {batch, heads, seq, dk}, x)).data;
}

}  // namespace

Floats norm_forward(const Floats& x, int rows, int e, const LayerNormWeights& n, NormTape& tape) {
  Floats y(x.size());
  tape.xhat.resize(x.size());
  tape.inv_std.resize(static_cast<std::size_t>(rows));
  grad::layer_norm_forward(x.data(), rows, e, n.weight.data(), n.bias.data(), n.eps, y.data(), tape.xhat.data(),
                           tape.inv_std.data());
  return y;
}

Floats norm_backward(const Floats& dy, int rows, int e, LayerNormWeights& n, const NormTape& tape) {
  Floats dx = zeros(dy.size());
  grad::layer_norm_backward(dy.data(), tape.xhat.data(), tape.inv_std.data(), rows, e, n.weight.data(), dx.data(),
                            grad_of(n.weight), grad_of(n.bias));
  return dx;
}

// y = x W[rows r0 .. r0+out)^T + b[r0 ..]: a slice of a weight (in_proj's Q, K or V rows).
Floats linear_slice(const Floats& x, int rows, int in, const Parameter& w, const Parameter& b, int r0, int out,
                    Backend backend) {
  Floats y(static_cast<std::size_t>(rows) * out);
  linear_rows(x.data(), rows, in, w.data() + static_cast<std::size_t>(r0) * in, b.empty() ? nullptr : b.data() + r0,
              out, y.data(), backend);
  return y;
}

void linear_slice_backward(const Floats& x, const Floats& dy, int rows, int in, Parameter& w, Parameter& b, int r0,
                           int out, Floats* dx, Backend backend) {
  grad::linear_backward(x.data(), dy.data(), rows, in, out, w.data() + static_cast<std::size_t>(r0) * in,
                        dx ? dx->data() : nullptr, grad_of(w) + static_cast<std::size_t>(r0) * in,
                        b.empty() ? nullptr : grad_of(b) + r0, backend);
}

Floats attention_forward(const Floats& xq, const Floats* xkv, const MultiHeadWeights& w, const AttentionCall& call,
                         const ModelSpec& s, Backend backend, AttentionTape& t) {
  const int e = s.d_model, h = s.heads, b = call.queries->batch;
  const int sq = call.queries->seq, sk = call.keys->seq;
  t.xq = xq;
  if (xkv) t.xkv = *xkv;
  const Floats& kv = xkv ? *xkv : xq;
  t.q = as_heads(linear_slice(xq, b * sq, e, w.in_proj_weight, w.in_proj_bias, 0, e, backend), b, sq, h);
  t.k = as_heads(linear_slice(kv, b * sk, e, w.in_proj_weight, w.in_proj_bias, e, e, backend), b, sk, h);
  t.v = as_heads(linear_slice(kv, b * sk, e, w.in_proj_weight, w.in_proj_bias, 2 * e, e, backend), b, sk, h);
  Tensor causal;
  if (call.causal) causal = causal_mask(sq, sk);
  const Tensor blocked = combine_masks(b, sq, sk, &call.keys->padding, call.causal ? &causal : nullptr).value();
  // The inference path's attention (attention.cpp), keeping the weights for the backward.
  AttentionStages st = scaled_dot_product_attention(t.q, t.k, t.v, &blocked, s.scale, backend, /*keep_stages=*/false);
  t.p = std::move(st.weights.data);
  zero_heads(st.output, call.ablated_heads);  // as the inference path (multi_head.cpp)
  t.merged = from_heads(st.output.data, b, h, sq);
  Floats out = linear_slice(t.merged, b * sq, e, w.out_proj_weight, w.out_proj_bias, 0, e, backend);
  if (s.attn_activation == Activation::None) return out;
  t.projected = out;
  for (float& v : out) v = activate(v, s.attn_activation);  // as the inference path (layers.cpp)
  return out;
}

Floats attention_backward(const Floats& dout, MultiHeadWeights& w, const AttentionCall& call, const ModelSpec& s,
                          Backend backend, const AttentionTape& t, Floats* dxkv) {
  const int e = s.d_model, h = s.heads, dk = s.head_dim(), b = call.queries->batch;
  const int sq = call.queries->seq, sk = call.keys->seq;
  Floats dprojected;  // through attnActivation: d out_proj's output (B*Sq, E)
  if (s.attn_activation != Activation::None) {
    dprojected = zeros(dout.size());
    grad::activation_backward(t.projected.data(), dout.data(), dout.size(), s.attn_activation, dprojected.data());
  }
  const Floats& dproj = s.attn_activation == Activation::None ? dout : dprojected;
  Floats dmerged = zeros(t.merged.size());
  linear_slice_backward(t.merged, dproj, b * sq, e, w.out_proj_weight, w.out_proj_bias, 0, e, &dmerged, backend);
  const Tensor dctx = as_heads(std::move(dmerged), b, sq, h);
  Floats dq = zeros(t.q.size()), dkh = zeros(t.k.size()), dv = zeros(t.v.size());
  const float scale = s.scale ? 1.0f / std::sqrt(static_cast<float>(dk)) : 1.0f;
  grad::attention_backward(t.q.ptr(), t.k.ptr(), t.v.ptr(), t.p.data(), dctx.ptr(), b, h, sq, sk, dk, scale, dq.data(),
                           dkh.data(), dv.data(), backend);
  Floats dxq = zeros(t.xq.size());
  const bool self = t.xkv.empty();
  Floats& dkv = self ? dxq : *dxkv;
  const Floats& kv = self ? t.xq : t.xkv;
  linear_slice_backward(t.xq, from_heads(dq, b, h, sq), b * sq, e, w.in_proj_weight, w.in_proj_bias, 0, e, &dxq,
                        backend);
  linear_slice_backward(kv, from_heads(dkh, b, h, sk), b * sk, e, w.in_proj_weight, w.in_proj_bias, e, e, &dkv,
                        backend);
  // The key bias adds q . b_k to every score of a query's row alike, and softmax ignores
  // a constant per row: its gradient is exactly 0. Computed, it is rounding noise, which
  // Adam (dividing by sqrt(v) + eps) would turn into steps of up to lr; so it is 0.
  if (!w.in_proj_bias.empty()) std::fill_n(grad_of(w.in_proj_bias) + e, e, 0.0f);
  linear_slice_backward(kv, from_heads(dv, b, h, sk), b * sk, e, w.in_proj_weight, w.in_proj_bias, 2 * e, e, &dkv,
                        backend);
  return dxq;
}

Floats ffn_forward(const Floats& x, int rows, const FeedForwardWeights& w, const ModelSpec& s, Backend backend,
                   FfnTape& t) {
  const int e = s.d_model, f = s.ffn_dim;
  t.x = x;
  t.pre = linear_slice(x, rows, e, w.linear1.weight, w.linear1.bias, 0, f, backend);
  t.act.resize(t.pre.size());
  // ReLU inline (a call per element to activate() cost more than the max itself); the
  // same values as activate(), which the other activations call.
  if (s.activation == Activation::ReLU)
    for (std::size_t i = 0; i < t.pre.size(); ++i) t.act[i] = t.pre[i] > 0.0f ? t.pre[i] : 0.0f;
  else
    for (std::size_t i = 0; i < t.pre.size(); ++i) t.act[i] = activate(t.pre[i], s.activation);
  return linear_slice(t.act, rows, f, w.linear2.weight, w.linear2.bias, 0, e, backend);
}

Floats ffn_backward(const Floats& dout, int rows, FeedForwardWeights& w, const ModelSpec& s, Backend backend,
                    const FfnTape& t) {
  const int e = s.d_model, f = s.ffn_dim;
  Floats dact = zeros(t.act.size());
  linear_slice_backward(t.act, dout, rows, f, w.linear2.weight, w.linear2.bias, 0, e, &dact, backend);
  Floats dpre = zeros(t.pre.size());
  grad::activation_backward(t.pre.data(), dact.data(), dpre.size(), s.activation, dpre.data());
  Floats dx = zeros(t.x.size());
  linear_slice_backward(t.x, dpre, rows, e, w.linear1.weight, w.linear1.bias, 0, f, &dx, backend);
  return dx;
}

}  // namespace attention::train
