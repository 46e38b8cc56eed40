#pragma once
// Training a Transformer: the mean cross-entropy loss of a batch and the gradient of
// every parameter, by a forward pass that keeps what the backward needs (a tape) and
// the backward of every operation (grad_ops.hpp). Checked against PyTorch autograd
// (tests/reference/generate_training_fixtures.py) and finite differences.
#include <vector>

#include "attention/result.hpp"
#include "attention/transformer.hpp"

namespace attention {

struct TrainingBatch {
  ForwardInput input;        // ids (B, S), lengths; for encoder–decoder specs the source too
  std::vector<int> targets;  // (B, S) the id each position should predict; -100 = ignore
};

struct LossResult {
  double loss = 0.0;          // mean cross-entropy over the counted targets
  int counted = 0;            // targets that were not -100
  int correct = 0;            // counted targets whose logit was the largest (argmax)
  int sequences = 0;          // sequences with at least one counted target
  int correct_sequences = 0;  // ... all of whose targets were correct
};

// The loss of the batch; every parameter's grad is replaced by d loss / d parameter.
// The parameters' values are not changed. Needs a spec with a head.
Result<LossResult> loss_and_gradients(Transformer& model, const TrainingBatch& batch, Backend backend = Backend::Fast);

// The loss alone (no gradients), by the same arithmetic; optionally with heads switched
// off (ForwardOptions::ablated_heads, an inference-time intervention: never in training).
Result<LossResult> loss_only(const Transformer& model, const TrainingBatch& batch, Backend backend = Backend::Fast,
                             const std::vector<HeadRef>& ablated_heads = {});

}  // namespace attention
