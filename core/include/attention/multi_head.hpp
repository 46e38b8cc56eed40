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
#include <vector>

#include "attention/backend.hpp"
#include "attention/linear.hpp"
#include "attention/result.hpp"
#include "attention/tensor.hpp"
#include "attention/trace.hpp"

namespace attention {

// Each Parameter is packed for the fast GEMM on first use and repacked after a write.
struct MultiHeadWeights {
  int embed_dim = 0;
  int kdim = 0, vdim = 0;     // widths of key and value inputs; 0 = embed_dim
  Parameter in_proj_weight;   // (3E, E): Q rows, then K rows, then V rows (when kdim = vdim = E)
  Parameter q_proj_weight;    // (E, E)     } instead of in_proj_weight when
  Parameter k_proj_weight;    // (E, kdim)  } kdim or vdim differ from E
  Parameter v_proj_weight;    // (E, vdim)  }
  Parameter in_proj_bias;     // (3E), or empty (bias=False)
  Parameter out_proj_weight;  // (E, E)
  Parameter out_proj_bias;    // (E), or empty (bias=False)

  int key_dim() const { return kdim ? kdim : embed_dim; }
  int value_dim() const { return vdim ? vdim : embed_dim; }
  bool separate_projections() const { return key_dim() != embed_dim || value_dim() != embed_dim; }
};

struct MultiHeadOptions {
  int heads = 1;
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
  Backend backend = Backend::Fast;
};

struct MultiHeadResult {
  Tensor output;   // (B, Sq, E)
  Tensor weights;  // (B, H, Sq, Sk) per head, (B, Sq, Sk) averaged, or empty (need_weights false)
};

// query: (B, Sq, E)  key: (B, Sk, kdim)  value: (B, Sk, vdim). Records, when the recorder
// is active: q_proj k_proj v_proj (B,S,E), q_split (B,Sq,H,d_k), q_heads k_heads v_heads
// (B,H,S,d_k), the masks by kind (mask.padding (B,Sk), mask.causal, mask.user,
// mask.additive (Sq,Sk)) and combined (mask (B,Sq,Sk)), scores scaled masked weights
// (B,H,Sq,Sk), context (B,H,Sq,d_k), merged (B,Sq,E), output (B,Sq,E).
Result<MultiHeadResult> multi_head_attention(const Tensor& query, const Tensor& key, const Tensor& value,
                                             const MultiHeadWeights& weights, const MultiHeadOptions& options,
                                             const Recorder& recorder = {});

// context: (B, H, Sq, d_v); the blocks of the listed heads become 0 (head ablation).
void zero_heads(Tensor& context, const std::vector<int>& heads);

// (B, S, E) -> (B, S, H, d_k): the same numbers, the last axis read as H blocks of d_k.
Tensor view_as_heads(const Tensor& x, int heads);
// (B, S, E) -> (B, H, S, d_k): each head's slice gathered into its own (S, d_k) block.
Tensor split_heads(const Tensor& x, int heads);
// (B, H, S, d_k) -> (B, S, E): the inverse of split_heads.
Tensor merge_heads(const Tensor& x);

}  // namespace attention
