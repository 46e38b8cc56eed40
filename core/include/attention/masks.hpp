#pragma once
// Masks say which (query, key) pairs may not attend. Convention everywhere, as in
// PyTorch's key_padding_mask: 1 = blocked (ignore this key), 0 = allowed.
#include <vector>

#include "attention/result.hpp"
#include "attention/tensor.hpp"

namespace attention {

// lengths[b] = real tokens of sequence b; keys at s >= lengths[b] are padding.
// -> (B, Sk), 1 where the key is padding.
Tensor key_padding_mask(const std::vector<int>& lengths, int key_len);

// -> (Sq, Sk), 1 where key j is in the future of query i (j > i), as
// torch.triu(ones(Sq, Sk), diagonal=1): a decoder may not look ahead.
Tensor causal_mask(int query_len, int key_len);

// -> (Sq, Sk), 1 where key j is outside the sliding window of query i: j <= i - window,
// or, without causal, also j >= i + window (a symmetric window).
Tensor window_mask(int query_len, int key_len, int window, bool causal);

// Element-wise union of two (Sq, Sk) masks (e.g. causal and a user mask).
Tensor union_of(const Tensor& a, const Tensor& b);

// One (B, Sq, Sk) mask from a (B, Sk) key padding mask and a (Sq, Sk) attention
// mask; either may be null. Shapes are checked: a mismatch is an Error.
Result<Tensor> combine_masks(int batch, int query_len, int key_len, const Tensor* key_padding, const Tensor* attn_mask);

}  // namespace attention
