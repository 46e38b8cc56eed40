#include "attention/masks.hpp"

#include <algorithm>
#include <string>

namespace attention {

Tensor key_padding_mask(const std::vector<int>& lengths, int key_len) {
  const int batch = static_cast<int>(lengths.size());
  Tensor mask({"B", "Sk"}, {batch, key_len});
  for (int b = 0; b < batch; ++b)
    for (int s = std::max(0, lengths[b]); s < key_len; ++s) mask.at({b, s}) = 1.0f;
  return mask;
}

Tensor causal_mask(int query_len, int key_len) {
  Tensor mask({"Sq", "Sk"}, {query_len, key_len});
  for (int i = 0; i < query_len; ++i)
    for (int j = i + 1; j < key_len; ++j) mask.at({i, j}) = 1.0f;
  return mask;
}

Tensor window_mask(int query_len, int key_len, int window, bool causal) {
  Tensor mask({"Sq", "Sk"}, {query_len, key_len});
  for (int i = 0; i < query_len; ++i)
    for (int j = 0; j < key_len; ++j)
      if (j <= i - window || (!causal && j >= i + window)) mask.at({i, j}) = 1.0f;
  return mask;
}

Tensor union_of(const Tensor& a, const Tensor& b) {
  Tensor out = a;
  for (std::size_t i = 0; i < out.size(); ++i) out.data[i] = (a.data[i] != 0.0f || b.data[i] != 0.0f) ? 1.0f : 0.0f;
  return out;
}

static std::string shape_text(const std::vector<int>& shape) {
  std::string text = "(";
  for (std::size_t i = 0; i < shape.size(); ++i) text += (i ? ", " : "") + std::to_string(shape[i]);
  return text + ")";
}

Result<Tensor> combine_masks(int batch, int query_len, int key_len, const Tensor* key_padding,
                             const Tensor* attn_mask) {
  if (key_padding && key_padding->shape != std::vector<int>{batch, key_len})
    return Error{"key padding mask has shape " + shape_text(key_padding->shape) +
                 ", expected (B, Sk) = " + shape_text({batch, key_len})};
  if (attn_mask && attn_mask->shape != std::vector<int>{query_len, key_len})
    return Error{"attention mask has shape " + shape_text(attn_mask->shape) +
                 ", expected (Sq, Sk) = " + shape_text({query_len, key_len})};
  Tensor blocked({"B", "Sq", "Sk"}, {batch, query_len, key_len});  // zeros: nothing blocked
  if (!key_padding && !attn_mask) return blocked;
  for (int b = 0; b < batch; ++b)
    for (int i = 0; i < query_len; ++i) {
      // row (b, i) of the result: the padding row of b or'ed with the mask row of i
      float* out = blocked.ptr() + (static_cast<std::size_t>(b) * query_len + i) * key_len;
      const float* pad = key_padding ? key_padding->ptr() + static_cast<std::size_t>(b) * key_len : nullptr;
      const float* user = attn_mask ? attn_mask->ptr() + static_cast<std::size_t>(i) * key_len : nullptr;
      for (int j = 0; j < key_len; ++j) out[j] = ((pad && pad[j] != 0.0f) || (user && user[j] != 0.0f)) ? 1.0f : 0.0f;
    }
  return blocked;
}

}  // namespace attention
