#pragma once
// A trainer: a model, AdamW, and batches from a task (or given by the caller). Steps
// are deterministic: the same seed, task and settings give the same losses, bit for bit,
// within one build. A step that meets a non-finite loss or gradient is refused (error
// code "diverged") and the model keeps its last finite parameters.
#include <cstdint>
#include <memory>
#include <vector>

#include "attention/optimizer.hpp"
#include "attention/tasks.hpp"
#include "attention/train.hpp"

namespace attention {

struct TrainerSettings {
  int batch_size = 32;
  std::uint32_t seed = 1;
  int eval_size = 256;  // held-out examples evaluate() uses
};

const Schema<TrainerSettings>& trainer_schema();

struct StepReport {
  std::int64_t step = 0;  // steps taken so far (this one included)
  double loss = 0.0;
  double accuracy = 0.0;           // per counted target, on this batch
  double sequence_accuracy = 0.0;  // sequences with every target right
  double grad_norm = 0.0;          // before clipping
  double lr = 0.0;
};

struct Evaluation {
  double loss = 0.0;
  double accuracy = 0.0;
  double sequence_accuracy = 0.0;
  int examples = 0;
};

class Trainer {
 public:
  // The model is shared with its handle; the task may be null (then batches are given).
  static Result<std::unique_ptr<Trainer>> create(std::shared_ptr<Transformer> model, const OptimizerOptions& optimizer,
                                                 const TrainerSettings& settings, std::unique_ptr<Task> task);

  Transformer& model() { return *model_; }
  const Task* task() const { return task_.get(); }
  std::int64_t steps() const { return optimizer_.steps(); }

  Result<StepReport> step();                            // one step on a batch drawn from the task
  Result<StepReport> step(const TrainingBatch& batch);  // one step on the caller's batch
  // On the task's held-out set; optionally with heads switched off (ForwardOptions::ablated_heads).
  Result<Evaluation> evaluate(const std::vector<HeadRef>& ablated_heads = {});

  // A batch of the task: (batch_size, seq_len) examples from the training part.
  TrainingBatch draw_batch();

  struct Snapshot {
    std::vector<std::vector<float>> parameters;
    AdamW::State optimizer;
    SplitMix64 rng{0};
  };
  Snapshot snapshot() const;
  void restore(const Snapshot& snapshot);

 private:
  Trainer(std::shared_ptr<Transformer> model, const OptimizerOptions& optimizer, const TrainerSettings& settings,
          std::unique_ptr<Task> task);

  std::shared_ptr<Transformer> model_;
  AdamW optimizer_;
  TrainerSettings settings_;
  std::unique_ptr<Task> task_;
  SplitMix64 rng_;
  std::vector<Example> held_out_;
};

}  // namespace attention
