#pragma once
// Multi-head attention in the layout of PyTorch's nn.MultiheadAttention
// (batch_first=True). Heads are a logical split of one projection:
//   query (B, Sq, E) --in_proj rows [0,E)--> q (B, Sq, E) -> (B, Sq, H, d_k) -> (B, H, Sq, d_k)
//   key   (B, Sk, E) --in_proj rows [E,2E)-> k ... (B, H, Sk, d_k);  value likewise with rows [2E,3E)
//   attention per head -> context (B, H, Sq, d_k) -> merge (B, Sq, E) -> out_proj -> (B, Sq, E)
// d_k = E / H. The output projection mixes the heads.
// As in PyTorch, key and value may have their own widths kdim and vdim; then the
// projections are three separate matrices (q_proj_weight (E, E), k_proj_weight
// (E, kdim), v_proj_weight (E, vdim)) instead of one in_proj_weight (3E, E).
//
// The modern block (spec.hpp) generalises the split: H query heads and H_kv key/value
// heads of d_h each (grouped-query attention when H_kv < H), in_proj_weight
// ((H + 2 H_kv) d_h, E), out_proj (E, H d_h); q and k may be normalised per head
// (q_norm, k_norm) and rotated by position (RoPE); scores may get ALiBi's bias and a
// sliding-window mask. With the defaults it is nn.MultiheadAttention.
#include <vector>

#include "attention/backend.hpp"
#include "attention/kv_cache.hpp"
#include "attention/linear.hpp"
#include "attention/norm.hpp"
#include "attention/result.hpp"
#include "attention/rope.hpp"
#include "attention/tensor.hpp"
#include "attention/trace.hpp"

namespace attention {

// Each Parameter is packed for the fast GEMM on first use and repacked after a write.
struct MultiHeadWeights {
  int embed_dim = 0;
  int kdim = 0, vdim = 0;           // widths of key and value inputs; 0 = embed_dim
  Parameter in_proj_weight;         // (3E, E): Q rows, then K rows, then V rows (when kdim = vdim = E)
  Parameter q_proj_weight;          // (E, E)     } instead of in_proj_weight when
  Parameter k_proj_weight;          // (E, kdim)  } kdim or vdim differ from E
  Parameter v_proj_weight;          // (E, vdim)  }
  Parameter in_proj_bias;           // (3E), or empty (bias=False)
  Parameter out_proj_weight;        // (E, E)
  Parameter out_proj_bias;          // (E), or empty (bias=False)
  LayerNormWeights q_norm, k_norm;  // (d_h) RMSNorms over each head's q and k, or empty (no qkNorm)

  int key_dim() const { return kdim ? kdim : embed_dim; }
  int value_dim() const { return vdim ? vdim : embed_dim; }
  bool separate_projections() const { return key_dim() != embed_dim || value_dim() != embed_dim; }
};

struct MultiHeadOptions {
  int heads = 1;
  int kv_heads = 0;                          // H_kv, each shared by heads / kv_heads query heads; 0 = heads
  int head_dim = 0;                          // d_h; 0 = E / heads
  float score_scale = 0.0f;                  // the scores' factor when `scale`; 0 = 1/sqrt(d_h)
  const RopeTable* rope = nullptr;           // rotate q and k (after their norms) by position 0..S-1
  bool alibi = false;                        // add ALiBi's -slope_h |i - j| to the scaled scores
  int window = 0;                            // block keys outside a sliding window of this size (0 = none)
  bool scale = true;                         // divide scores by sqrt(d_k)
  bool causal = false;                       // block keys j > i
  const Tensor* key_padding_mask = nullptr;  // (B, Sk), 1 = ignore that key
  const Tensor* attn_mask = nullptr;         // (Sq, Sk), 1 = block
  const Tensor* attn_bias = nullptr;         // (Sq, Sk) float mask added to the scaled scores (-inf blocks)
  bool need_weights = true;                  // false: the result's weights stay empty
  bool average_weights = false;              // weights averaged over heads: (B, Sq, Sk)
  // Heads switched off (0..heads-1, repeats allowed): their context, weights x V
  // (B, Sq, d_v) per head, is zero before the merge, so out_proj sees nothing of them
  // (the same as zeroing their d_v columns of out_proj's weight); weights stay as computed.
  std::vector<int> ablated_heads;
  // Parallel to ablated_heads (or empty: every row): the batch row each applies to, -1 = every row.
  std::vector<int> ablated_rows;
  // Mean ablation: null = zero; else (H, Sq, d_v), the value each ablated head's context takes.
  const Tensor* head_means = nullptr;
  Backend backend = Backend::Fast;
};

struct MultiHeadResult {
  Tensor output;   // (B, Sq, E)
  Tensor weights;  // (B, H, Sq, Sk) per head, (B, Sq, Sk) averaged, or empty (need_weights false)
};

// The widths of one attention block's heads.
struct HeadShape {
  int heads = 1, kv_heads = 1, head_dim = 1;
  int q_dim() const { return heads * head_dim; }      // H d_h: rows of Q in in_proj
  int kv_dim() const { return kv_heads * head_dim; }  // H_kv d_h: rows of K, and of V
  int group() const { return heads / kv_heads; }      // query heads per K/V head
};
HeadShape head_shape(const MultiHeadOptions& options, int embed_dim);

// (B, H_kv, S, d) -> (B, H, S, d): head h reads K/V head h / (H / H_kv).
Tensor repeat_kv(const Tensor& kv, int heads);
// (B, H, S, d) -> (B, H_kv, S, d): the sum over each group (repeat_kv's backward).
Tensor sum_groups(const Tensor& x, int kv_heads);

// The (Sq, Sk) masks of a self- or cross-attention call, 1 = blocked: causal, the sliding
// window, and a user mask, joined (null when none applies). `window` and `causal` are
// returned for the trace. An error if the user mask has the wrong shape.
struct StructuralMasks {
  Tensor causal, window, joined;
  const Tensor* user = nullptr;
  bool any = false;
  // What to pass on: the joined mask, the user mask alone, or null.
  const Tensor* mask() const { return !any ? nullptr : joined.size() > 0 ? &joined : user; }
};
Result<StructuralMasks> structural_masks(int sq, int sk, bool causal, int window, const Tensor* user);

// query: (B, Sq, E)  key: (B, Sk, kdim)  value: (B, Sk, vdim). Records, when the recorder
// is active: q_proj k_proj v_proj (B,S,E), q_split (B,Sq,H,d_k), q_heads k_heads v_heads
// (B,H,S,d_k), the masks by kind (mask.padding (B,Sk), mask.causal, mask.window,
// mask.user, mask.additive (Sq,Sk)) and combined (mask (B,Sq,Sk)), scores scaled masked
// weights (B,H,Sq,Sk), context (B,H,Sq,d_k), merged (B,Sq,E), output (B,Sq,E); in the
// modern block also kv_group (H: each query head's K/V head), k_heads and v_heads as
// (B,H_kv,Sk,d_h), q_normed k_normed, q_rotated k_rotated, alibi (H,Sq,Sk).
Result<MultiHeadResult> multi_head_attention(const Tensor& query, const Tensor& key, const Tensor& value,
                                             const MultiHeadWeights& weights, const MultiHeadOptions& options,
                                             const Recorder& recorder = {});

// Causal self-attention of a block of new rows against a layer's KV cache (kv_cache.hpp):
// the same projections, qkNorm, RoPE, masks-as-blocked-scores and
// scaled_dot_product_attention as multi_head_attention, one call per sequence with a query
// block of rows[b] rows at absolute positions first[b].. and the keys of the cache and of
// the block itself. options: heads, kv_heads, head_dim, score_scale, rope (a table covering
// first[b] + Sn), alibi, window, scale, ablated_heads, backend (causal is implied).
// x: (B, Sn, E); first[b]: sequence b's cached length; rows[b]: its real rows, 1..Sn (the
// rest is right padding: its output is out_proj's bias alone and its keys are not kept).
// -> (B, Sn, E). The cache is only read: the block's keys and values come back in `block`.
struct CachedBlock {
  std::vector<std::vector<float>> k, v;  // per sequence (H_kv, rows[b], d_h): K rotated, V as projected
  Tensor last_weights;                   // (B, H, P): each sequence's last real row's weights over
                                         // positions 0..P-1 (0 where not visible), P = max(first + rows)
};
Result<Tensor> cached_self_attention(const Tensor& x, const MultiHeadWeights& weights, const MultiHeadOptions& options,
                                     const LayerKvCache& cache, const std::vector<int>& first,
                                     const std::vector<int>& rows, CachedBlock& block);

// context: (B, H, Sq, d_v); the blocks of the listed heads become 0 (head ablation).
void zero_heads(Tensor& context, const std::vector<int>& heads);
// context: (B, H, Sq, d_v); options' ablated heads, each in its row (ablated_rows) or every
// row, become 0 or, with head_means (H, Sq, d_v), their mean (mean ablation).
void ablate_heads(Tensor& context, const MultiHeadOptions& options);

// (B, S, E) -> (B, S, H, d_k): the same numbers, the last axis read as H blocks of d_k.
Tensor view_as_heads(const Tensor& x, int heads);
// (B, S, E) -> (B, H, S, d_k): each head's slice gathered into its own (S, d_k) block.
Tensor split_heads(const Tensor& x, int heads);
// (B, H, S, d_k) -> (B, S, E): the inverse of split_heads.
Tensor merge_heads(const Tensor& x);

}  // namespace attention
