#pragma once
// Scaled dot-product attention, kept as named stages so each can be shown:
//   scores  = Q K^T                      (B, H, Sq, Sk)
//   scaled  = scores / sqrt(d_k)         d_k = per-head key size, not the sequence length
//   masked  = scaled (+ a float mask), blocked -> -inf
//   weights = softmax over the key axis  each unblocked row sums to 1, blocked entries are 0
//   output  = weights V                  (B, H, Sq, d_v)
// A row whose keys are all blocked gets all-zero weights and a zero output (PyTorch
// gives NaN there).
#include "attention/backend.hpp"
#include "attention/tensor.hpp"

namespace attention {

struct AttentionStages {
  Tensor scores;            // (B, H, Sq, Sk)
  Tensor scaled;            // (B, H, Sq, Sk)
  Tensor masked;            // (B, H, Sq, Sk), -inf where blocked
  Tensor weights;           // (B, H, Sq, Sk)
  Tensor output;            // (B, H, Sq, d_v)
  bool nan_scores = false;  // a score was NaN: float32 overflowed (+inf met -inf in q . k)
};

// q: (B, H, Sq, d_k)  k: (B, H, Sk, d_k)  v: (B, H, Sk, d_v)
// blocked: (B, Sq, Sk) with 1 = blocked, or nullptr for no mask.
// scale = false skips the 1/sqrt(d_k) factor (to show why it exists).
// additive: (Sq, Sk) float mask added to the scaled scores (PyTorch's float attn_mask;
// -inf entries block), or (H, Sq, Sk) per head (ALiBi's bias), or nullptr.
// factor: the scale when `scale` is on; 0 = 1/sqrt(d_k) (Gemma's is 1/sqrt(queryPreAttnScalar)).
// keep_stages = false computes only weights and output (scores, scaled and masked
// stay empty): the scale is folded into Q K^T and the mask and softmax work in place.
// The scores' factor: 1 without `scale`, else `setting` if positive, else 1/sqrt(d_k).
float attention_score_factor(bool scale, float setting, int dk);
AttentionStages scaled_dot_product_attention(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor* blocked,
                                             bool scale, Backend backend = Backend::Fast, bool keep_stages = true,
                                             const Tensor* additive = nullptr, float factor = 0.0f);

// Softmax of one row in place, stable for any finite scores (the row maximum is
// subtracted first). Entries equal to -inf (blocked) become exactly 0; a row with
// nothing unblocked becomes all zeros. If scores overflowed to +inf, those keys
// share the weight equally (the limit of the softmax), so the row never holds NaN.
void softmax_row(float* row, int length);

}  // namespace attention
