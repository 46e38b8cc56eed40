#include "attention/grad_ops.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "attention/parallel.hpp"
#include "kernels/kernels.hpp"

namespace attention::grad {

namespace {

kernels::GemmFn gemm_for(Backend backend) {
  return backend == Backend::Reference ? &kernels::gemm_f32_scalar : kernels::fastest_gemm().fn;
}

}  // namespace

// The kernels accumulate (C += product) and read A transposed themselves: no scratch
// product, no explicit transpose.
void matmul_nn(int m, int n, int k, const float* a, const float* b, float* c, Backend backend) {
  if (m > 0 && n > 0 && k > 0)
    kernels::gemm_accumulate(gemm_for(backend), m, n, k, a, false, b, kernels::Layout::NN, c);
}

void matmul_nt(int m, int n, int k, const float* a, const float* b, float* c, Backend backend) {
  if (m > 0 && n > 0 && k > 0)
    kernels::gemm_accumulate(gemm_for(backend), m, n, k, a, false, b, kernels::Layout::NT, c);
}

void matmul_tn(int m, int n, int k, const float* a, const float* b, float* c, Backend backend) {
  if (m > 0 && n > 0 && k > 0) kernels::gemm_accumulate(gemm_for(backend), m, n, k, a, true, b, kernels::Layout::NN, c);
}

void linear_backward(const float* x, const float* dy, int rows, int in, int out, const float* weight, float* dx,
                     float* dweight, float* dbias, Backend backend) {
  if (dx) matmul_nn(rows, in, out, dy, weight, dx, backend);       // (rows, out) x (out, in)
  if (dweight) matmul_tn(out, in, rows, dy, x, dweight, backend);  // (out, rows) x (rows, in)
  if (dbias)
    for (int r = 0; r < rows; ++r)
      for (int o = 0; o < out; ++o) dbias[o] += dy[static_cast<std::size_t>(r) * out + o];
}

void layer_norm_forward(const float* x, int rows, int e, const float* gamma, const float* beta, float eps, float* y,
                        float* xhat, float* inv_std) {
  // Mean and variance in double; the inference forward (layers.cpp) calls this too.
  for (int r = 0; r < rows; ++r) {
    const float* row = x + static_cast<std::size_t>(r) * e;
    double mean = 0.0;
    for (int i = 0; i < e; ++i) mean += row[i];
    mean /= e;
    double variance = 0.0;
    for (int i = 0; i < e; ++i) variance += (row[i] - mean) * (row[i] - mean);
    variance /= e;
    const double is = 1.0 / std::sqrt(variance + eps);
    if (inv_std) inv_std[r] = static_cast<float>(is);
    for (int i = 0; i < e; ++i) {
      const float h = static_cast<float>((row[i] - mean) * is);
      if (xhat) xhat[static_cast<std::size_t>(r) * e + i] = h;
      y[static_cast<std::size_t>(r) * e + i] = h * gamma[i] + beta[i];
    }
  }
}

void rms_norm_forward(const float* x, int rows, int e, const float* gamma, float offset, float eps, float* y,
                      float* xhat, float* inv_rms) {
  for (int r = 0; r < rows; ++r) {  // the mean square in double, as LayerNorm's moments
    const float* row = x + static_cast<std::size_t>(r) * e;
    double square = 0.0;
    for (int i = 0; i < e; ++i) square += static_cast<double>(row[i]) * row[i];
    const double ir = 1.0 / std::sqrt(square / e + eps);
    if (inv_rms) inv_rms[r] = static_cast<float>(ir);
    for (int i = 0; i < e; ++i) {
      const float h = static_cast<float>(row[i] * ir);
      if (xhat) xhat[static_cast<std::size_t>(r) * e + i] = h;
      y[static_cast<std::size_t>(r) * e + i] = h * (offset + gamma[i]);
    }
  }
}

void rms_norm_backward(const float* dy, const float* xhat, const float* inv_rms, int rows, int e, const float* gamma,
                       float offset, float* dx, float* dgamma) {
  for (int r = 0; r < rows; ++r) {
    const float* d = dy + static_cast<std::size_t>(r) * e;
    const float* h = xhat + static_cast<std::size_t>(r) * e;
    double mean_gh = 0.0;  // mean(gd xhat)
    for (int i = 0; i < e; ++i) mean_gh += (offset + static_cast<double>(gamma[i])) * d[i] * h[i];
    mean_gh /= e;
    for (int i = 0; i < e; ++i) {
      const double gd = (offset + static_cast<double>(gamma[i])) * d[i];
      if (dx) dx[static_cast<std::size_t>(r) * e + i] += static_cast<float>((gd - h[i] * mean_gh) * inv_rms[r]);
      if (dgamma) dgamma[i] += d[i] * h[i];
    }
  }
}

void layer_norm_backward(const float* dy, const float* xhat, const float* inv_std, int rows, int e, const float* gamma,
                         float* dx, float* dgamma, float* dbeta) {
  for (int r = 0; r < rows; ++r) {
    const float* d = dy + static_cast<std::size_t>(r) * e;
    const float* h = xhat + static_cast<std::size_t>(r) * e;
    double mean_g = 0.0, mean_gh = 0.0;  // mean(g dy), mean(g dy xhat)
    for (int i = 0; i < e; ++i) {
      const double gd = static_cast<double>(gamma[i]) * d[i];
      mean_g += gd;
      mean_gh += gd * h[i];
      if (dgamma) dgamma[i] += d[i] * h[i];
      if (dbeta) dbeta[i] += d[i];
    }
    mean_g /= e;
    mean_gh /= e;
    if (dx)
      for (int i = 0; i < e; ++i)
        dx[static_cast<std::size_t>(r) * e + i] +=
            static_cast<float>((gamma[i] * d[i] - mean_g - h[i] * mean_gh) * inv_std[r]);
  }
}

void activation_backward(const float* pre, const float* dy, std::size_t n, Activation activation, float* dx) {
  if (activation == Activation::ReLU) {  // slope 1 or 0: dy * 1.0 or dy * 0.0, as below, without doubles
    for (std::size_t i = 0; i < n; ++i) dx[i] += pre[i] > 0 ? dy[i] : dy[i] * 0.0f;
    return;
  }
  constexpr double kInvSqrt2 = 0.70710678118654752, kInvSqrt2Pi = 0.39894228040143268;
  constexpr double kC = 0.79788456080286536, kA = 0.044715;  // sqrt(2/pi), the tanh approximation's cubic
  for (std::size_t i = 0; i < n; ++i) {
    const double x = pre[i];
    double slope = 0.0;
    switch (activation) {
      case Activation::ReLU:
        slope = x > 0 ? 1.0 : 0.0;
        break;
      case Activation::GELU:  // d/dx x Phi(x) = Phi(x) + x phi(x)
        slope = 0.5 * (1.0 + std::erf(x * kInvSqrt2)) + x * kInvSqrt2Pi * std::exp(-0.5 * x * x);
        break;
      case Activation::GELUTanh: {  // 0.5 (1 + t) + 0.5 x (1 - t^2) c (1 + 3 a x^2), t = tanh(c (x + a x^3))
        const double t = std::tanh(kC * (x + kA * x * x * x));
        slope = 0.5 * (1.0 + t) + 0.5 * x * (1.0 - t * t) * kC * (1.0 + 3.0 * kA * x * x);
        break;
      }
      case Activation::None:
        slope = 1.0;
        break;
      case Activation::SiLU: {  // d/dx x s(x) = s (1 + x (1 - s)), s = sigmoid(x)
        const double sig = x >= 0 ? 1.0 / (1.0 + std::exp(-x)) : std::exp(x) / (1.0 + std::exp(x));
        slope = sig * (1.0 + x * (1.0 - sig));
        break;
      }
    }
    dx[i] += static_cast<float>(dy[i] * slope);
  }
}

void attention_backward(const float* q, const float* k, const float* v, const float* p, const float* dctx, int batch,
                        int heads, int sq, int sk, int dk, float scale, float* dq, float* dk_out, float* dv,
                        Backend backend) {
  const std::size_t qs = static_cast<std::size_t>(sq) * dk, ks = static_cast<std::size_t>(sk) * dk;
  const std::size_t ps = static_cast<std::size_t>(sq) * sk;
  // Each (batch, head) writes only its own slices of dq, dk and dv: split across threads by (batch, head)
  // when there is enough work (four (Sq, Sk, d_k) products per item).
  parallel_for(batch * heads, min_chunk_for(8.0 * sq * sk * dk), [&](int first, int last) {
    std::vector<float> dp(ps);  // (Sq, Sk) scratch of this chunk
    for (int bh = first; bh < last; ++bh) {
      const float* pb = p + bh * ps;
      const float* dc = dctx + bh * qs;
      // dv += p^T dctx: (Sk, Sq) x (Sq, d_k);  dp = dctx v^T: (Sq, d_k) x (Sk, d_k)^T
      matmul_tn(sk, dk, sq, pb, dc, dv + bh * ks, backend);
      kernels::gemm(gemm_for(backend), sq, sk, dk, dc, v + bh * ks, kernels::Layout::NT, 1.0f, nullptr, dp.data());
      // Softmax backward, row by row: ds_j = p_j (dp_j - sum_k p_k dp_k); then the scale.
      // Blocked keys have p = 0, so their ds is 0: no gradient flows through a mask.
      for (int i = 0; i < sq; ++i) {
        const float* pr = pb + static_cast<std::size_t>(i) * sk;
        float* dr = dp.data() + static_cast<std::size_t>(i) * sk;
        double dot = 0.0;
        for (int j = 0; j < sk; ++j) dot += static_cast<double>(pr[j]) * dr[j];
        for (int j = 0; j < sk; ++j) dr[j] = static_cast<float>(pr[j] * (dr[j] - dot)) * scale;
      }
      // dq += ds k: (Sq, Sk) x (Sk, d_k);  dk += ds^T q: (Sk, Sq) x (Sq, d_k)
      matmul_nn(sq, dk, sk, dp.data(), k + bh * ks, dq + bh * qs, backend);
      matmul_tn(sk, dk, sq, dp.data(), q + bh * qs, dk_out + bh * ks, backend);
    }
  });
}

double cross_entropy(const float* logits, const int* targets, int rows, int vocab, float* dlogits, int* counted) {
  int n = 0;
  for (int r = 0; r < rows; ++r) n += targets[r] != kIgnoreIndex;
  *counted = n;
  std::fill(dlogits, dlogits + static_cast<std::size_t>(rows) * vocab, 0.0f);
  if (n == 0) return 0.0;
  double total = 0.0;
  for (int r = 0; r < rows; ++r) {
    if (targets[r] == kIgnoreIndex) continue;
    const float* z = logits + static_cast<std::size_t>(r) * vocab;
    float* d = dlogits + static_cast<std::size_t>(r) * vocab;
    const double top = *std::max_element(z, z + vocab);
    double sum = 0.0;
    for (int j = 0; j < vocab; ++j) sum += std::exp(z[j] - top);
    const double log_sum = std::log(sum) + top;
    total += log_sum - z[targets[r]];
    // d mean / d z_j = (softmax_j - [j == target]) / n
    for (int j = 0; j < vocab; ++j) d[j] = static_cast<float>(std::exp(z[j] - log_sum) / n);
    d[targets[r]] -= 1.0f / static_cast<float>(n);
  }
  return total / n;
}

}  // namespace attention::grad
