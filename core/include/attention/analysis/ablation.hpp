#pragma once
// Ablation (issue 29): switch heads or MLPs off, by zero or by their mean over a reference
// batch, and rank every head and MLP by how much the prediction at one position depends on it.
//   zero ablation: a head's context z (S, d_h) (weights x V, before out_proj) or an MLP's output
//                  (S, E) (before any post-norm and the residual add) becomes 0
//   mean ablation: it becomes its per-position mean over N reference sequences of the same
//                  length S: z_mean[s] = (1/N) sum_n z_n[s] (TransformerLens's usual mean
//                  ablation over a batch, hook_z / hook_mlp_out)
// The forward pass applies them (ForwardOptions::ablated_heads, ablated_mlps, means).
#include <vector>

#include "attention/result.hpp"
#include "attention/transformer.hpp"

namespace attention {

// Most reference sequences a mean ablation takes.
inline constexpr int kMaxMeanOver = 64;

// The per-position means of every head's context and every MLP's output over `count`
// sequences of `seq` ids (ids: (N, S), row-major). Errors (field "meanOver"): no sequences or
// more than kMaxMeanOver, ids of the wrong size, ids outside the vocabulary; an encoder–decoder
// ("model").
Result<AblationMeans> ablation_means(const Transformer& model, const std::vector<int>& ids, int count, int seq);

struct AblationRankingOptions {
  std::vector<int> ids;        // one sequence (S)
  int position = 0;            // 0..S-1: a causal model's next-token prediction there, or BERT's token there
  int token = 0;               // 0..V-1
  int against = -1;            // -1: follow logit(token); else logit(token) - logit(against)
  bool mean = false;           // mean ablation over mean_over, else zero ablation
  std::vector<int> mean_over;  // (N, S) reference ids, with mean
  int mean_count = 0;          // N
};

struct AblationRanking {
  int layers = 0, heads = 0;
  float probability = 0;  // the clean run's p(token) at the position
  float logit_diff = 0;   // the clean run's logit(token) - logit(against), or logit(token)
  std::vector<float> head_probability_change, head_logit_diff_change;  // (L, H): ablated - clean
  std::vector<float> mlp_probability_change, mlp_logit_diff_change;    // (L)
  // Every part, the largest |logit_diff change| first (stable: heads layer by layer, then the
  // MLPs): index i < L H is head (i / H, i % H), else the MLP of layer i - L H.
  std::vector<int> order;
};

// Every head and every MLP ablated alone, in batched passes: one ablation per batch row, each
// layer's parts run from that layer's clean input (the layers before it are not run again); a
// causal model's ids are cut after the position, which its prediction does not see.
// Errors: "position", "token", "against" (out_of_range), "meanOver" (as ablation_means, or
// missing with mean, or given without it), "model" (an encoder–decoder or no output head),
// and the forward pass's ("ids").
Result<AblationRanking> ablation_ranking(const Transformer& model, const AblationRankingOptions& options);

}  // namespace attention
