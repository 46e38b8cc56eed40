#pragma once
// Training's building blocks (private to core/src/train): each sub-layer's forward pass
// with the tape its backward needs, and that backward, on row-major float arrays; the
// whole model's tape is backprop.cpp's. Shapes: rows = B * S positions of the stack
// at hand; E = d_model; H heads of d_k; F = ffn width. Backwards add (+=) into parameter
// gradients, which grad_of() allocates on first use.
#include <vector>

#include "attention/grad_ops.hpp"
#include "attention/rope.hpp"
#include "attention/spec.hpp"
#include "attention/tensor.hpp"

namespace attention::train {

using Floats = std::vector<float>;

inline Floats zeros(std::size_t n) { return Floats(n, 0.0f); }

inline void add_into(Floats& to, const Floats& from) {
  for (std::size_t i = 0; i < to.size(); ++i) to[i] += from[i];
}

inline float* grad_of(Parameter& p) {
  if (p.grad.size() != p.size()) p.grad.assign(p.size(), 0.0f);
  return p.grad.data();
}

// A sequence of one stack: its positions, and who may attend to whom.
struct StackShape {
  int batch = 0, seq = 0;
  Tensor padding;  // (B, S), 1 = padding
  int rows() const { return batch * seq; }
};

struct NormTape {
  Floats xhat, inv_std;
};

// The norm of x (rows, E) by its type (LayerNorm or an RMSNorm), keeping xhat and 1/std
// (1/rms); the backward adds into the norm's grads.
Floats norm_forward(const Floats& x, int rows, int e, const LayerNormWeights& n, NormTape& tape);
Floats norm_backward(const Floats& dy, int rows, int e, LayerNormWeights& n, const NormTape& tape);

// y = x W[rows r0 .. r0+out)^T + b[r0 ..]: a slice of a weight (in_proj's Q, K or V rows).
Floats linear_slice(const Floats& x, int rows, int in, const Parameter& w, const Parameter& b, int r0, int out,
                    Backend backend);
// dW, db of the slice += ...; dx (rows, in) += dy W when dx is given.
void linear_slice_backward(const Floats& x, const Floats& dy, int rows, int in, Parameter& w, Parameter& b, int r0,
                           int out, Floats* dx, Backend backend);

struct AttentionTape {
  Floats xq, xkv;           // inputs: queries (B*Sq, E), keys/values (B*Sk, E); xkv empty = self-attention
  Tensor q, k, v;           // as the scores see them: q (B, H, Sq, d_h), k and v (B, H_kv, Sk, d_h)
  NormTape q_norm, k_norm;  // qkNorm: over each head's d_h
  Floats p;                 // (B, H, Sq, Sk)
  Floats merged;            // (B*Sq, H d_h)
  Floats projected;         // (B*Sq, E) out_proj's output, before attnActivation; empty without one
};

struct AttentionCall {
  const StackShape* queries;
  const StackShape* keys;
  bool causal;
  std::vector<int> ablated_heads = {};  // heads whose context is zeroed (loss_only's head ablation)
  // Self-attention of the modern block: RoPE's table, ALiBi, the sliding window (0 = none).
  const RopeTable* rope = nullptr;
  bool alibi = false;
  int window = 0;
};

// queries xq (B*Sq, E) attend to keys/values xkv (B*Sk, E), or to themselves when xkv is
// null -> (B*Sq, E), after out_proj and the spec's attnActivation.
Floats attention_forward(const Floats& xq, const Floats* xkv, const MultiHeadWeights& w, const AttentionCall& call,
                         const ModelSpec& s, Backend backend, AttentionTape& t);
// -> d(queries input); d(keys/values input) is added to *dxkv for cross-attention.
Floats attention_backward(const Floats& dout, MultiHeadWeights& w, const AttentionCall& call, const ModelSpec& s,
                          Backend backend, const AttentionTape& t, Floats* dxkv);

struct FfnTape {
  Floats x, pre, act;  // pre: linear1's output (rows, F), gated (rows, 2F) = [gate | up] per row; act (rows, F)
  Floats product;      // gated only: act * up (rows, F)
};

// linear2(activation(linear1(x))): (rows, E) -> (rows, F) -> (rows, E); gated:
// linear2(activation(gate x) * up x).
Floats ffn_forward(const Floats& x, int rows, const FeedForwardWeights& w, const ModelSpec& s, Backend backend,
                   FfnTape& t);
Floats ffn_backward(const Floats& dout, int rows, FeedForwardWeights& w, const ModelSpec& s, Backend backend,
                    const FfnTape& t);

// One residual sub-layer in any norm placement:
//   post: y = norm(x + f(x))     pre: y = x + f(norm(x))     sandwich: y = x + post(f(norm(x)))
//   (residual off: drop the "x +")
// Without LayerNorm (layerNorm false) norm is the identity: y = x + f(x).
struct SublayerTape {
  NormTape norm, post_norm;
  AttentionTape attention;
  FfnTape ffn;
};

template <class Forward>
Floats sublayer_forward(const Floats& x, int rows, const LayerNormWeights& n, const LayerNormWeights& post,
                        const ModelSpec& s, SublayerTape& t, Forward&& f) {
  if (s.norm != NormPlacement::Post) {
    Floats out = f(s.layer_norm ? norm_forward(x, rows, s.d_model, n, t.norm) : x);
    if (s.sandwich() && s.layer_norm) out = norm_forward(out, rows, s.d_model, post, t.post_norm);
    if (s.residual) add_into(out, x);
    return out;
  }
  Floats sum = f(x);
  if (s.residual) add_into(sum, x);
  return s.layer_norm ? norm_forward(sum, rows, s.d_model, n, t.norm) : sum;
}

template <class Backward>
Floats sublayer_backward(const Floats& dy, int rows, LayerNormWeights& n, LayerNormWeights& post, const ModelSpec& s,
                         const SublayerTape& t, Backward&& f_back) {
  if (s.norm != NormPlacement::Post) {
    Floats dx = f_back(s.sandwich() && s.layer_norm ? norm_backward(dy, rows, s.d_model, post, t.post_norm) : dy);
    if (s.layer_norm) dx = norm_backward(dx, rows, s.d_model, n, t.norm);
    if (s.residual) add_into(dx, dy);
    return dx;
  }
  const Floats dsum = s.layer_norm ? norm_backward(dy, rows, s.d_model, n, t.norm) : dy;
  Floats dx = f_back(dsum);
  if (s.residual) add_into(dx, dsum);
  return dx;
}

}  // namespace attention::train
