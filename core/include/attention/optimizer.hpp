#pragma once
// AdamW as torch.optim.AdamW (PyTorch 1.13, amsgrad off), clipping by the global
// gradient norm as torch.nn.utils.clip_grad_norm_, and an optional linear warm-up
// with cosine decay of the learning rate. The settings are declared once
// (optimizer_schema()), like every other setting.
#include <cstdint>
#include <vector>

#include "attention/result.hpp"
#include "attention/settings.hpp"
#include "attention/transformer.hpp"

namespace attention {

enum class Schedule { Constant, Cosine };

struct OptimizerOptions {
  double lr = 1e-3;
  double beta1 = 0.9;
  double beta2 = 0.999;
  double eps = 1e-8;
  double weight_decay = 0.01;
  double clip_norm = 0.0;  // 0 = no clipping
  int warmup = 0;          // steps of linear warm-up: lr * (t + 1) / warmup for t < warmup
  Schedule schedule = Schedule::Constant;
  int total_steps = 0;  // cosine: the step at which the lr reaches 0 (after warm-up)
};

const Schema<OptimizerOptions>& optimizer_schema();

// The learning rate of step t (0 for the first step).
double learning_rate(const OptimizerOptions& options, std::int64_t step);

class AdamW {
 public:
  explicit AdamW(const OptimizerOptions& options) : options_(options) {}
  const OptimizerOptions& options() const { return options_; }
  std::int64_t steps() const { return steps_; }

  struct StepInfo {
    double grad_norm = 0.0;  // global L2 norm of the gradients, before clipping
    double lr = 0.0;         // the learning rate used
  };

  // One update of every parameter from its grad. The gradients must be finite (the
  // trainer checks); they are clipped in place when clip_norm is set.
  StepInfo step(Transformer& model);

  // The moment estimates, in the parameters' visiting order (for snapshots).
  struct State {
    std::int64_t steps = 0;
    std::vector<std::vector<float>> m, v;
  };
  const State& state() const { return state_; }
  void restore(State state) {
    state_ = std::move(state);
    steps_ = state_.steps;
  }

 private:
  OptimizerOptions options_;
  std::int64_t steps_ = 0;
  State state_;
};

// The global L2 norm of every parameter's gradient (double accumulation).
double gradient_norm(const Transformer& model);

}  // namespace attention
