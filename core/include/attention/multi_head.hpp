#pragma once
// Multi-head attention in the layout of PyTorch's nn.MultiheadAttention
// (batch_first=True). Heads are a logical split of one projection:
//   query (B, Sq, E) --in_proj rows [0,E)--> q (B, Sq, E) -> (B, Sq, H, d_k) -> (B, H, Sq, d_k)
//   key   (B, Sk, E) --in_proj rows [E,2E)-> k ... (B, H, Sk, d_k);  value likewise with rows [2E,3E)
//   attention per head -> context (B, H, Sq, d_k) -> merge (B, Sq, E) -> out_proj -> (B, Sq, E)
// d_k = E / H. The output projection mixes the heads.
#include <vector>

#include "attention/backend.hpp"
#include "attention/linear.hpp"
#include "attention/result.hpp"
#include "attention/tensor.hpp"
#include "attention/trace.hpp"

namespace attention {

struct MultiHeadWeights {
  int embed_dim = 0;
  std::vector<float> in_proj_weight;   // (3E, E): Q rows, then K rows, then V rows
  std::vector<float> in_proj_bias;     // (3E)
  std::vector<float> out_proj_weight;  // (E, E)
  std::vector<float> out_proj_bias;    // (E)
  // Set by prepare(): in_proj (all 3E rows, used for self-attention) and out_proj packed
  // once for the fast GEMM. Stale if the weights change afterwards.
  std::shared_ptr<const kernels::PackedWeight> packed_in_proj, packed_out_proj;
};

void prepare(MultiHeadWeights& w);

struct MultiHeadOptions {
  int heads = 1;
  bool scale = true;                         // divide scores by sqrt(d_k)
  bool causal = false;                       // block keys j > i
  const Tensor* key_padding_mask = nullptr;  // (B, Sk), 1 = ignore that key
  const Tensor* attn_mask = nullptr;         // (Sq, Sk), 1 = block
  Backend backend = Backend::Fast;
};

struct MultiHeadResult {
  Tensor output;   // (B, Sq, E)
  Tensor weights;  // (B, H, Sq, Sk), per head (not averaged)
};

// query: (B, Sq, E)  key, value: (B, Sk, E). Records, when the recorder is active:
// q_proj k_proj v_proj (B,S,E), q_split (B,Sq,H,d_k), q_heads k_heads v_heads (B,H,S,d_k),
// mask (B,Sq,Sk), scores scaled masked weights (B,H,Sq,Sk), context (B,H,Sq,d_k),
// merged (B,Sq,E), output (B,Sq,E).
Result<MultiHeadResult> multi_head_attention(const Tensor& query, const Tensor& key, const Tensor& value,
                                             const MultiHeadWeights& weights, const MultiHeadOptions& options,
                                             const Recorder& recorder = {});

// (B, S, E) -> (B, S, H, d_k): the same numbers, the last axis read as H blocks of d_k.
Tensor view_as_heads(const Tensor& x, int heads);
// (B, S, E) -> (B, H, S, d_k): each head's slice gathered into its own (S, d_k) block.
Tensor split_heads(const Tensor& x, int heads);
// (B, H, S, d_k) -> (B, S, E): the inverse of split_heads.
Tensor merge_heads(const Tensor& x);

}  // namespace attention
