#pragma once
// Head detectors (TransformerLens's head_detector.py, 'mul' measure): how much of each
// head's attention falls on a detection pattern, on repeated random tokens.
//   previous:  query i -> key i-1
//   duplicate: query i -> every earlier key j < i holding the same token
//   induction: query i -> every key j <= i whose predecessor (j-1 < i) holds token i
//              (the token right after an earlier copy)
// A head's score on one sequence is sum(A * P) / sum(A) over the (S, S) weights A and
// pattern P (sum(A) = S: every row sums to 1; BOS and the current token are not
// excluded), and the score is the mean over the batch's sequences, as TransformerLens
// averages a list of prompts.
#include <cstdint>
#include <string>
#include <vector>

#include "attention/result.hpp"
#include "attention/tensor.hpp"
#include "attention/transformer.hpp"

namespace attention {

enum class HeadPattern { Previous, Duplicate, Induction };

// "previous", "duplicate", "induction"; an Error (field "kind") for any other name.
Result<HeadPattern> parse_head_pattern(const std::string& name);
const char* to_string(HeadPattern kind);

struct HeadScoreOptions {
  HeadPattern kind = HeadPattern::Induction;
  std::uint64_t seed = 0;
  int length = 10;  // random tokens per half: each sequence is S = 2 length tokens
  int batch = 4;    // sequences averaged
};

// (B, S) ids: per sequence `length` tokens drawn as SplitMix64(seed).next() % vocab
// (B x length draws in order, row by row), then the same `length` tokens again.
std::vector<int> repeated_random_tokens(std::uint64_t seed, int length, int batch, int vocab);

// The (S, S) detection pattern P[query][key] of one sequence's ids, 0 or 1, lower triangular.
std::vector<float> detection_pattern(HeadPattern kind, const std::vector<int>& ids);

// The score of each head from one layer's weights (B, H, S, S) and the ids (B, S): (H).
std::vector<float> score_layer(HeadPattern kind, const Tensor& weights, const std::vector<int>& ids);

// (L, H): every self-attention head of a single-stack model on repeated random tokens.
// Errors: "length" (1..maxSeq / 2), "batch" (1..64), an encoder–decoder ("model").
Result<Tensor> head_scores(const Transformer& model, const HeadScoreOptions& options);

}  // namespace attention
