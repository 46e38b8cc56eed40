#include "attention/attention.hpp"

#include <cassert>
#include <cmath>
#include <limits>

#include "attention/parallel.hpp"
#include "kernels/kernels.hpp"

namespace attention {

namespace {

constexpr float kNegInf = -std::numeric_limits<float>::infinity();

}  // namespace

void softmax_row(float* row, int length) { kernels::softmax_rows_scalar(row, 1, length); }

float attention_score_factor(bool scale, float setting, int dk) {
  return !scale ? 1.0f : setting > 0.0f ? setting : 1.0f / std::sqrt(static_cast<float>(dk));
}

AttentionStages scaled_dot_product_attention(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor* blocked,
                                             bool scale, Backend backend, bool keep_stages, const Tensor* additive,
                                             float factor_setting) {
  assert(q.rank() == 4 && k.rank() == 4 && v.rank() == 4);
  const int batch = q.shape[0], heads = q.shape[1], sq = q.shape[2], dk = q.shape[3];
  const int sk = k.shape[2], dv = v.shape[3];
  assert(k.shape[0] == batch && k.shape[1] == heads && k.shape[3] == dk);
  assert(v.shape[0] == batch && v.shape[1] == heads && v.shape[2] == sk);
  assert(!blocked || blocked->shape == (std::vector<int>{batch, sq, sk}));

  const bool reference = backend == Backend::Reference;
  const kernels::GemmFn gemm = reference ? &kernels::gemm_f32_scalar : kernels::fastest_gemm().fn;
  const kernels::SoftmaxFn softmax = reference ? &kernels::softmax_rows_scalar : kernels::fastest_softmax().fn;
  const float factor = attention_score_factor(scale, factor_setting, dk);
  const std::size_t score_block = static_cast<std::size_t>(sq) * sk;

  AttentionStages st;
  st.weights = Tensor({"B", "H", "Sq", "Sk"}, {batch, heads, sq, sk});
  st.output = Tensor({"B", "H", "Sq", "d_v"}, {batch, heads, sq, dv});
  // Kept stages: the raw scores, then scaled and masked copies. Otherwise the scale
  // is folded into the Q K^T product and everything happens in the weights buffer.
  float* scores = st.weights.ptr();
  if (keep_stages) {
    st.scores = Tensor({"B", "H", "Sq", "Sk"}, {batch, heads, sq, sk});
    scores = st.scores.ptr();
  }
  // One (Sq, Sk) product per (batch, head), split across threads by (batch, head) when there is enough of them.
  parallel_for(batch * heads, min_chunk_for(2.0 * sq * sk * dk), [&](int first, int last) {
    for (std::size_t bh = static_cast<std::size_t>(first); bh < static_cast<std::size_t>(last); ++bh)
      kernels::gemm(gemm, sq, sk, dk, q.ptr() + bh * sq * dk, k.ptr() + bh * sk * dk, kernels::Layout::NT,
                    keep_stages ? 1.0f : factor, nullptr, scores + bh * score_block);
  });
  for (std::size_t i = 0; i < static_cast<std::size_t>(batch) * heads * score_block; ++i)
    if (std::isnan(scores[i])) {
      st.nan_scores = true;
      break;
    }
  if (keep_stages) {
    st.scaled = st.scores;
    for (float& x : st.scaled.data) x *= factor;
    st.masked = st.scaled;
  }
  float* masked = keep_stages ? st.masked.ptr() : st.weights.ptr();
  if (additive) {
    const bool per_head = additive->rank() == 3;
    assert(additive->shape == (per_head ? std::vector<int>{heads, sq, sk} : std::vector<int>{sq, sk}));
    for (std::size_t bh = 0; bh < static_cast<std::size_t>(batch) * heads; ++bh) {
      float* m = masked + bh * score_block;
      const float* a = additive->ptr() + (per_head ? (bh % heads) * score_block : 0);
      for (std::size_t i = 0; i < score_block; ++i) m[i] += a[i];
    }
  }
  if (blocked)
    for (std::size_t bh = 0; bh < static_cast<std::size_t>(batch) * heads; ++bh) {
      const float* block = blocked->ptr() + (bh / heads) * score_block;
      float* m = masked + bh * score_block;
      for (std::size_t i = 0; i < score_block; ++i)
        if (block[i] != 0.0f) m[i] = kNegInf;
    }
  if (keep_stages) st.weights.data = st.masked.data;
  // Softmax and weights x V, per (batch, head) on the threads (exp counted as a few flops).
  parallel_for(batch * heads, min_chunk_for(2.0 * sq * sk * dv + 8.0 * sq * sk), [&](int first, int last) {
    softmax(st.weights.ptr() + static_cast<std::size_t>(first) * score_block, (last - first) * sq, sk);
    for (std::size_t bh = static_cast<std::size_t>(first); bh < static_cast<std::size_t>(last); ++bh)
      kernels::gemm(gemm, sq, dv, sk, st.weights.ptr() + bh * score_block, v.ptr() + bh * sk * dv, kernels::Layout::NN,
                    1.0f, nullptr, st.output.ptr() + bh * sq * dv);
  });
  return st;
}

}  // namespace attention
