#include "attention/optimizer.hpp"

#include <cmath>

namespace attention {

const Schema<OptimizerOptions>& optimizer_schema() {
  using O = OptimizerOptions;
  static const Schema<OptimizerOptions> schema{
      {
          number_field("lr", &O::lr, 0.0, true, 10.0, "Learning rate (the peak, with a schedule)."),
          number_field("beta1", &O::beta1, 0.0, false, 0.999999, "Adam's first-moment decay (betas[0])."),
          number_field("beta2", &O::beta2, 0.0, false, 0.999999, "Adam's second-moment decay (betas[1])."),
          number_field("eps", &O::eps, 0.0, true, 1.0, "Added to the root of the second moment."),
          number_field("weightDecay", &O::weight_decay, 0.0, false, 10.0, "Decoupled weight decay (AdamW)."),
          number_field("clipNorm", &O::clip_norm, 0.0, false, 1e6, "Clip the global gradient norm to this (0 = off)."),
          int_field("warmup", &O::warmup, 0, 1000000, "Steps of linear learning-rate warm-up."),
          choice_field("schedule", &O::schedule, {{"constant", Schedule::Constant}, {"cosine", Schedule::Cosine}},
                       "After warm-up: keep the learning rate, or decay it to 0 along a cosine by totalSteps."),
          int_field("totalSteps", &O::total_steps, 0, 100000000, "For the cosine schedule: where it reaches 0."),
      },
      {}};
  return schema;
}

double learning_rate(const OptimizerOptions& o, std::int64_t t) {
  if (t < o.warmup) return o.lr * static_cast<double>(t + 1) / o.warmup;
  if (o.schedule == Schedule::Constant) return o.lr;
  const double span = std::max<double>(1.0, static_cast<double>(o.total_steps - o.warmup));
  const double progress = std::min(1.0, static_cast<double>(t - o.warmup) / span);
  return o.lr * 0.5 * (1.0 + std::cos(3.14159265358979323846 * progress));
}

double gradient_norm(const Transformer& model) {
  double sum = 0.0;
  model.visit_parameters([&](const Parameter& p) {
    for (float g : p.grad) sum += static_cast<double>(g) * g;
  });
  return std::sqrt(sum);
}

AdamW::StepInfo AdamW::step(Transformer& model) {
  StepInfo info;
  info.grad_norm = gradient_norm(model);
  info.lr = learning_rate(options_, steps_);
  const double lr = info.lr;
  // clip_grad_norm_: every gradient times min(1, max_norm / (norm + 1e-6)).
  if (options_.clip_norm > 0.0) {
    const double coefficient = std::min(1.0, options_.clip_norm / (info.grad_norm + 1e-6));
    if (coefficient < 1.0)
      model.visit_parameters([&](Parameter& p) {
        for (float& g : p.grad) g = static_cast<float>(g * coefficient);
      });
  }
  ++steps_;
  state_.steps = steps_;
  const double correction1 = 1.0 - std::pow(options_.beta1, static_cast<double>(steps_));
  const double correction2_root = std::sqrt(1.0 - std::pow(options_.beta2, static_cast<double>(steps_)));
  const double step_size = lr / correction1;
  const float b1 = static_cast<float>(options_.beta1), b2 = static_cast<float>(options_.beta2);
  const float decay = static_cast<float>(1.0 - lr * options_.weight_decay);
  std::size_t index = 0;
  model.visit_parameters([&](Parameter& p) {
    if (state_.m.size() <= index) {
      state_.m.emplace_back(p.size(), 0.0f);
      state_.v.emplace_back(p.size(), 0.0f);
    }
    std::vector<float>& m = state_.m[index];
    std::vector<float>& v = state_.v[index];
    ++index;
    std::vector<float>& w = p.mutable_values();
    for (std::size_t i = 0; i < w.size(); ++i) {
      const float g = p.grad[i];
      w[i] *= decay;                           // p = p (1 - lr wd)
      m[i] = b1 * m[i] + (1.0f - b1) * g;      // m = b1 m + (1 - b1) g
      v[i] = b2 * v[i] + (1.0f - b2) * g * g;  // v = b2 v + (1 - b2) g^2
      const double denom = std::sqrt(static_cast<double>(v[i])) / correction2_root + options_.eps;
      w[i] = static_cast<float>(w[i] - step_size * m[i] / denom);  // p -= lr / bc1 * m / (sqrt(v) / sqrt(bc2) + eps)
    }
  });
  return info;
}

}  // namespace attention
