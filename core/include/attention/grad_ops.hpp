#pragma once
// The backward pass of each operation a ModelSpec can contain, on row-major float
// arrays. Each is written once and runs on the scalar GEMM (Backend::Reference, the
// spec) or the platform's fast GEMM (Backend::Fast); both are tested against finite
// differences over odd shapes (tests/core/test_grad_ops.cpp). Gradients accumulate
// (+=) into the d* outputs, so shared weights and residual branches just add up.
// Letters: rows = B*S positions, in / out features, E = d_model, F = ffn width,
// Sq / Sk query and key lengths, d_k per-head width.
#include <cstddef>

#include "attention/backend.hpp"
#include "attention/layers.hpp"

namespace attention::grad {

// C (m, n) += A (m, k) * B (k, n), all dense rows.
void matmul_nn(int m, int n, int k, const float* a, const float* b, float* c, Backend backend);
// C (m, n) += A (m, k) * B^T, B stored (n, k).
void matmul_nt(int m, int n, int k, const float* a, const float* b, float* c, Backend backend);
// C (m, n) += A^T * B, A stored (k, m), B stored (k, n).
void matmul_tn(int m, int n, int k, const float* a, const float* b, float* c, Backend backend);

// y = x W^T + b: x (rows, in), W (out, in), b (out) or null.
// dx (rows, in) += dy W;  dW (out, in) += dy^T x;  db (out) += sum over rows of dy. Any d* may be null.
void linear_backward(const float* x, const float* dy, int rows, int in, int out, const float* weight, float* dx,
                     float* dweight, float* dbias, Backend backend);

// LayerNorm over the last axis of (rows, E): xhat = (x - mean) * inv_std, y = xhat * g + b.
// The forward keeps xhat (rows, E) and inv_std (rows) for the backward (either may be
// null: inference keeps neither). y may be x itself.
void layer_norm_forward(const float* x, int rows, int e, const float* gamma, const float* beta, float eps, float* y,
                        float* xhat, float* inv_std);
// dx += (g dy - mean(g dy) - xhat mean(g dy xhat)) inv_std;  dg += sum dy xhat;  db += sum dy.
void layer_norm_backward(const float* dy, const float* xhat, const float* inv_std, int rows, int e, const float* gamma,
                         float* dx, float* dgamma, float* dbeta);

// RMSNorm over the last axis of (rows, E): inv_rms = 1 / sqrt(mean(x^2) + eps),
// xhat = x * inv_rms, y = xhat * (offset + g) (offset 1: Gemma's form). xhat and inv_rms
// may be null; y may be x.
void rms_norm_forward(const float* x, int rows, int e, const float* gamma, float offset, float eps, float* y,
                      float* xhat, float* inv_rms);
// With gd = (offset + g) dy:  dx += (gd - xhat mean(gd xhat)) inv_rms;  dg += sum dy xhat.
void rms_norm_backward(const float* dy, const float* xhat, const float* inv_rms, int rows, int e, const float* gamma,
                       float offset, float* dx, float* dgamma);

// dx += dy * f'(pre) for the activation f applied to `pre`.
void activation_backward(const float* pre, const float* dy, std::size_t n, Activation activation, float* dx);

// Attention's backward, for every (batch, head) block: q (BH, Sq, d_k), k and v (BH, Sk,
// d_k), p (BH, Sq, Sk) the softmax weights the forward (scaled_dot_product_attention,
// attention.hpp) computed with this scale; heads per batch entry H.
// dq, dk, dv += through ctx = softmax(scale q k^T, blocked) v.
void attention_backward(const float* q, const float* k, const float* v, const float* p, const float* dctx, int batch,
                        int heads, int sq, int sk, int dk, float scale, float* dq, float* dk_out, float* dv,
                        Backend backend);

// Mean cross-entropy of logits (rows, V) against targets (rows), target -100 ignored
// (PyTorch's ignore_index and reduction='mean'). Writes the gradient of that mean to
// dlogits (zero on ignored rows) and returns the loss; `counted` = targets used. With no
// target counted, the loss is 0 and so is the gradient (PyTorch gives NaN there).
double cross_entropy(const float* logits, const int* targets, int rows, int vocab, float* dlogits, int* counted);

inline constexpr int kIgnoreIndex = -100;

}  // namespace attention::grad
