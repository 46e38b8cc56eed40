#include "src/train/layer_backprop.hpp"

#include <algorithm>
#include <cmath>

#include "attention/attention.hpp"
#include "attention/masks.hpp"
#include "attention/multi_head.hpp"
#include "attention/positional.hpp"
#include "attention/transformer.hpp"

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
  norm_rows(x.data(), rows, e, n, y.data(), tape.xhat.data(), tape.inv_std.data());
  return y;
}

Floats norm_backward(const Floats& dy, int rows, int e, LayerNormWeights& n, const NormTape& tape) {
  Floats dx = zeros(dy.size());
  if (n.type == NormType::LayerNorm)
    grad::layer_norm_backward(dy.data(), tape.xhat.data(), tape.inv_std.data(), rows, e, n.weight.data(), dx.data(),
                              grad_of(n.weight), grad_of(n.bias));
  else
    grad::rms_norm_backward(dy.data(), tape.xhat.data(), tape.inv_std.data(), rows, e, n.weight.data(),
                            norm_weight_offset(n.type), dx.data(), grad_of(n.weight));
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
  const int e = s.d_model, h = s.heads, hkv = s.kv_head_count(), dh = s.head_dim(), b = call.queries->batch;
  const int sq = call.queries->seq, sk = call.keys->seq, qd = h * dh, kvd = hkv * dh;
  t.xq = xq;
  if (xkv) t.xkv = *xkv;
  const Floats& kv = xkv ? *xkv : xq;
  // in_proj rows: Q [0, qd), K [qd, qd + kvd), V [qd + kvd, qd + 2 kvd)
  t.q = as_heads(linear_slice(xq, b * sq, e, w.in_proj_weight, w.in_proj_bias, 0, qd, backend), b, sq, h);
  t.k = as_heads(linear_slice(kv, b * sk, e, w.in_proj_weight, w.in_proj_bias, qd, kvd, backend), b, sk, hkv);
  t.v = as_heads(linear_slice(kv, b * sk, e, w.in_proj_weight, w.in_proj_bias, qd + kvd, kvd, backend), b, sk, hkv);
  // As the inference path (multi_head.cpp): each head's q and k normalised, then rotated.
  if (!w.q_norm.weight.empty()) {
    t.q.data = norm_forward(t.q.data, b * h * sq, dh, w.q_norm, t.q_norm);
    t.k.data = norm_forward(t.k.data, b * hkv * sk, dh, w.k_norm, t.k_norm);
  }
  if (call.rope) {
    apply_rope(t.q, *call.rope);
    apply_rope(t.k, *call.rope);
  }
  const StructuralMasks masks = structural_masks(sq, sk, call.causal, call.window, nullptr).value();
  const Tensor blocked = combine_masks(b, sq, sk, &call.keys->padding, masks.mask()).value();
  const Tensor alibi = call.alibi ? alibi_bias(h, sq, sk) : Tensor{};
  // The inference path's attention (attention.cpp), keeping the weights for the backward.
  const bool grouped = hkv != h;  // K/V repeated to the query heads (no copy without groups)
  const Tensor k_repeated = grouped ? repeat_kv(t.k, h) : Tensor{}, v_repeated = grouped ? repeat_kv(t.v, h) : Tensor{};
  AttentionStages st =
      scaled_dot_product_attention(t.q, grouped ? k_repeated : t.k, grouped ? v_repeated : t.v, &blocked, s.scale,
                                   backend, /*keep_stages=*/false, call.alibi ? &alibi : nullptr, score_scale(s));
  t.p = std::move(st.weights.data);
  zero_heads(st.output, call.ablated_heads);  // as the inference path (multi_head.cpp)
  t.merged = from_heads(st.output.data, b, h, sq);
  Floats out = linear_slice(t.merged, b * sq, qd, w.out_proj_weight, w.out_proj_bias, 0, e, backend);
  if (s.attn_activation == Activation::None) return out;
  t.projected = out;
  for (float& v : out) v = activate(v, s.attn_activation);  // as the inference path (layers.cpp)
  return out;
}

Floats attention_backward(const Floats& dout, MultiHeadWeights& w, const AttentionCall& call, const ModelSpec& s,
                          Backend backend, const AttentionTape& t, Floats* dxkv) {
  const int e = s.d_model, h = s.heads, hkv = s.kv_head_count(), dh = s.head_dim(), b = call.queries->batch;
  const int sq = call.queries->seq, sk = call.keys->seq, qd = h * dh, kvd = hkv * dh;
  Floats dprojected;  // through attnActivation: d out_proj's output (B*Sq, E)
  if (s.attn_activation != Activation::None) {
    dprojected = zeros(dout.size());
    grad::activation_backward(t.projected.data(), dout.data(), dout.size(), s.attn_activation, dprojected.data());
  }
  const Floats& dproj = s.attn_activation == Activation::None ? dout : dprojected;
  Floats dmerged = zeros(t.merged.size());
  linear_slice_backward(t.merged, dproj, b * sq, qd, w.out_proj_weight, w.out_proj_bias, 0, e, &dmerged, backend);
  const Tensor dctx = as_heads(std::move(dmerged), b, sq, h);
  // Through the grouped K and V: each query head read its group's K/V head, so the
  // gradients of the H copies add up in it.
  const bool grouped = hkv != h;
  const Tensor k_repeated = grouped ? repeat_kv(t.k, h) : Tensor{}, v_repeated = grouped ? repeat_kv(t.v, h) : Tensor{};
  const Tensor& k_full = grouped ? k_repeated : t.k;
  const Tensor& v_full = grouped ? v_repeated : t.v;
  Tensor dq(t.q.axes, t.q.shape), dk_full(k_full.axes, k_full.shape), dv_full(v_full.axes, v_full.shape);
  const float factor = score_scale(s);
  const float scale = !s.scale ? 1.0f : factor > 0.0f ? factor : 1.0f / std::sqrt(static_cast<float>(dh));
  grad::attention_backward(t.q.ptr(), k_full.ptr(), v_full.ptr(), t.p.data(), dctx.ptr(), b, h, sq, sk, dh, scale,
                           dq.ptr(), dk_full.ptr(), dv_full.ptr(), backend);
  Tensor dk = grouped ? sum_groups(dk_full, hkv) : std::move(dk_full);
  Tensor dv = grouped ? sum_groups(dv_full, hkv) : std::move(dv_full);
  if (call.rope) {  // a rotation's backward turns back
    apply_rope(dq, *call.rope, /*inverse=*/true);
    apply_rope(dk, *call.rope, /*inverse=*/true);
  }
  if (!w.q_norm.weight.empty()) {
    dq.data = norm_backward(dq.data, b * h * sq, dh, w.q_norm, t.q_norm);
    dk.data = norm_backward(dk.data, b * hkv * sk, dh, w.k_norm, t.k_norm);
  }
  Floats dxq = zeros(t.xq.size());
  const bool self = t.xkv.empty();
  Floats& dkv = self ? dxq : *dxkv;
  const Floats& kv = self ? t.xq : t.xkv;
  linear_slice_backward(t.xq, from_heads(dq.data, b, h, sq), b * sq, e, w.in_proj_weight, w.in_proj_bias, 0, qd, &dxq,
                        backend);
  linear_slice_backward(kv, from_heads(dk.data, b, hkv, sk), b * sk, e, w.in_proj_weight, w.in_proj_bias, qd, kvd, &dkv,
                        backend);
  // The key bias adds q . b_k to every score of a query's row alike, and softmax ignores
  // a constant per row: its gradient is exactly 0. Computed, it is rounding noise, which
  // Adam (dividing by sqrt(v) + eps) would turn into steps of up to lr; so it is 0. Not
  // so once k is rotated by position (RoPE) or normalised (qkNorm): then b_k matters.
  if (!w.in_proj_bias.empty() && !call.rope && w.k_norm.weight.empty())
    std::fill_n(grad_of(w.in_proj_bias) + qd, kvd, 0.0f);
  linear_slice_backward(kv, from_heads(dv.data, b, hkv, sk), b * sk, e, w.in_proj_weight, w.in_proj_bias, qd + kvd, kvd,
                        &dkv, backend);
  return dxq;
}

Floats ffn_forward(const Floats& x, int rows, const FeedForwardWeights& w, const ModelSpec& s, Backend backend,
                   FfnTape& t) {
  const int e = s.d_model, f = s.ffn_dim;
  t.x = x;
  if (w.gated) {  // [gate | up] = x W1^T (rows, 2F); product = act(gate) * up (rows, F)
    t.pre = linear_slice(x, rows, e, w.linear1.weight, w.linear1.bias, 0, 2 * f, backend);
    t.act.resize(static_cast<std::size_t>(rows) * f);
    t.product.resize(t.act.size());
    for (int r = 0; r < rows; ++r)
      std::copy_n(t.pre.data() + static_cast<std::size_t>(r) * 2 * f, f,
                  t.act.data() + static_cast<std::size_t>(r) * f);
    activate_all(t.act, s.activation, backend);  // as the inference path (layers.cpp)
    for (int r = 0; r < rows; ++r)
      for (int i = 0; i < f; ++i) {
        const std::size_t at = static_cast<std::size_t>(r) * f + i, in = static_cast<std::size_t>(r) * 2 * f + i;
        t.product[at] = t.act[at] * t.pre[in + f];
      }
    return linear_slice(t.product, rows, f, w.linear2.weight, w.linear2.bias, 0, e, backend);
  }
  t.pre = linear_slice(x, rows, e, w.linear1.weight, w.linear1.bias, 0, f, backend);
  t.act.resize(t.pre.size());
  // ReLU inline (a call per element to activate() cost more than the max itself); the
  // same values as activate(), which the other activations call.
  if (s.activation == Activation::ReLU) {
    for (std::size_t i = 0; i < t.pre.size(); ++i) t.act[i] = t.pre[i] > 0.0f ? t.pre[i] : 0.0f;
  } else {
    t.act = t.pre;
    activate_all(t.act, s.activation, backend);  // as the inference path (layers.cpp)
  }
  return linear_slice(t.act, rows, f, w.linear2.weight, w.linear2.bias, 0, e, backend);
}

Floats ffn_backward(const Floats& dout, int rows, FeedForwardWeights& w, const ModelSpec& s, Backend backend,
                    const FfnTape& t) {
  const int e = s.d_model, f = s.ffn_dim;
  Floats dx = zeros(t.x.size());
  if (w.gated) {
    Floats dproduct = zeros(t.product.size());
    linear_slice_backward(t.product, dout, rows, f, w.linear2.weight, w.linear2.bias, 0, e, &dproduct, backend);
    Floats dpre = zeros(t.pre.size()), dact(static_cast<std::size_t>(f));
    for (int r = 0; r < rows; ++r) {
      const std::size_t at = static_cast<std::size_t>(r) * f, in = static_cast<std::size_t>(r) * 2 * f;
      for (int i = 0; i < f; ++i) {
        dact[i] = dproduct[at + i] * t.pre[in + f + i];       // d act(gate) = d product * up
        dpre[in + f + i] = dproduct[at + i] * t.act[at + i];  // d up = d product * act(gate)
      }
      grad::activation_backward(t.pre.data() + in, dact.data(), f, s.activation, dpre.data() + in);
    }
    linear_slice_backward(t.x, dpre, rows, e, w.linear1.weight, w.linear1.bias, 0, 2 * f, &dx, backend);
    return dx;
  }
  Floats dact = zeros(t.act.size());
  linear_slice_backward(t.act, dout, rows, f, w.linear2.weight, w.linear2.bias, 0, e, &dact, backend);
  Floats dpre = zeros(t.pre.size());
  grad::activation_backward(t.pre.data(), dact.data(), dpre.size(), s.activation, dpre.data());
  linear_slice_backward(t.x, dpre, rows, e, w.linear1.weight, w.linear1.bias, 0, f, &dx, backend);
  return dx;
}

}  // namespace attention::train
