#include "attention/attention.hpp"

#include <Eigen/Core>
#include <cassert>
#include <cmath>
#include <limits>

namespace attention {

namespace {

using RowMajorMatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using ConstMatrixMap = Eigen::Map<const RowMajorMatrix>;
using MatrixMap = Eigen::Map<RowMajorMatrix>;

constexpr float kNegInf = -std::numeric_limits<float>::infinity();

// One (b, h) slice: q (Sq, d_k), k (Sk, d_k) -> scores (Sq, Sk)
void scores_reference(const float* q, const float* k, int sq, int sk, int dk, float* scores) {
  for (int i = 0; i < sq; ++i)
    for (int j = 0; j < sk; ++j) {
      float dot = 0.0f;
      for (int d = 0; d < dk; ++d) dot += q[i * dk + d] * k[j * dk + d];
      scores[i * sk + j] = dot;
    }
}

// weights (Sq, Sk), v (Sk, d_v) -> out (Sq, d_v)
void weighted_sum_reference(const float* weights, const float* v, int sq, int sk, int dv, float* out) {
  for (int i = 0; i < sq; ++i)
    for (int d = 0; d < dv; ++d) {
      float sum = 0.0f;
      for (int j = 0; j < sk; ++j) sum += weights[i * sk + j] * v[j * dv + d];
      out[i * dv + d] = sum;
    }
}

void scores_eigen(const float* q, const float* k, int sq, int sk, int dk, float* scores) {
  MatrixMap(scores, sq, sk).noalias() = ConstMatrixMap(q, sq, dk) * ConstMatrixMap(k, sk, dk).transpose();
}

void weighted_sum_eigen(const float* weights, const float* v, int sq, int sk, int dv, float* out) {
  MatrixMap(out, sq, dv).noalias() = ConstMatrixMap(weights, sq, sk) * ConstMatrixMap(v, sk, dv);
}

}  // namespace

void softmax_row(float* row, int length) {
  float max_value = kNegInf;
  for (int j = 0; j < length; ++j)
    if (row[j] > max_value) max_value = row[j];
  if (max_value == kNegInf) {  // every key blocked: no distribution to take
    for (int j = 0; j < length; ++j) row[j] = 0.0f;
    return;
  }
  if (std::isinf(max_value)) {  // scores overflowed to +inf: the limit puts all weight on those keys
    int count = 0;
    for (int j = 0; j < length; ++j) count += row[j] == max_value;
    for (int j = 0; j < length; ++j) row[j] = row[j] == max_value ? 1.0f / static_cast<float>(count) : 0.0f;
    return;
  }
  float sum = 0.0f;
  for (int j = 0; j < length; ++j) {
    // NaN scores (only from NaN inputs) count as blocked rather than poisoning the row.
    const float e = (row[j] == kNegInf || std::isnan(row[j])) ? 0.0f : std::exp(row[j] - max_value);
    row[j] = e;
    sum += e;
  }
  const float inverse = 1.0f / sum;
  for (int j = 0; j < length; ++j) row[j] *= inverse;
}

AttentionStages scaled_dot_product_attention(const Tensor& q, const Tensor& k, const Tensor& v,
                                             const Tensor* blocked, bool scale, Backend backend) {
  assert(q.rank() == 4 && k.rank() == 4 && v.rank() == 4);
  const int batch = q.shape[0], heads = q.shape[1], sq = q.shape[2], dk = q.shape[3];
  const int sk = k.shape[2], dv = v.shape[3];
  assert(k.shape[0] == batch && k.shape[1] == heads && k.shape[3] == dk);
  assert(v.shape[0] == batch && v.shape[1] == heads && v.shape[2] == sk);
  assert(!blocked || blocked->shape == (std::vector<int>{batch, sq, sk}));

  AttentionStages st;
  st.scores = Tensor({"B", "H", "Sq", "Sk"}, {batch, heads, sq, sk});
  st.output = Tensor({"B", "H", "Sq", "d_v"}, {batch, heads, sq, dv});
  const float factor = scale ? 1.0f / std::sqrt(static_cast<float>(dk)) : 1.0f;

  const std::size_t score_block = static_cast<std::size_t>(sq) * sk;
  for (int b = 0; b < batch; ++b)
    for (int h = 0; h < heads; ++h) {
      const std::size_t bh = static_cast<std::size_t>(b) * heads + h;
      const float* q_bh = q.ptr() + bh * sq * dk;
      const float* k_bh = k.ptr() + bh * sk * dk;
      float* s_bh = st.scores.ptr() + bh * score_block;
      if (backend == Backend::Reference)
        scores_reference(q_bh, k_bh, sq, sk, dk, s_bh);
      else
        scores_eigen(q_bh, k_bh, sq, sk, dk, s_bh);
    }

  st.scaled = st.scores;
  for (float& x : st.scaled.data) x *= factor;

  st.masked = st.scaled;
  if (blocked)
    for (int b = 0; b < batch; ++b)
      for (int h = 0; h < heads; ++h) {
        float* m = st.masked.ptr() + (static_cast<std::size_t>(b) * heads + h) * score_block;
        const float* block = blocked->ptr() + static_cast<std::size_t>(b) * score_block;
        for (std::size_t i = 0; i < score_block; ++i)
          if (block[i] != 0.0f) m[i] = kNegInf;
      }

  st.weights = st.masked;
  for (std::size_t row = 0; row < static_cast<std::size_t>(batch) * heads * sq; ++row)
    softmax_row(st.weights.ptr() + row * sk, sk);

  for (int b = 0; b < batch; ++b)
    for (int h = 0; h < heads; ++h) {
      const std::size_t bh = static_cast<std::size_t>(b) * heads + h;
      const float* w_bh = st.weights.ptr() + bh * score_block;
      const float* v_bh = v.ptr() + bh * sk * dv;
      float* o_bh = st.output.ptr() + bh * sq * dv;
      if (backend == Backend::Reference)
        weighted_sum_reference(w_bh, v_bh, sq, sk, dv, o_bh);
      else
        weighted_sum_eigen(w_bh, v_bh, sq, sk, dv, o_bh);
    }
  return st;
}

}  // namespace attention
