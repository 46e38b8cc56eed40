#include "attention/trainer.hpp"

#include <cmath>

#include "attention/numeric.hpp"

namespace attention {

const Schema<TrainerSettings>& trainer_schema() {
  using T = TrainerSettings;
  static const Schema<TrainerSettings> schema{
      {
          int_field("batchSize", &T::batch_size, 1, 4096, "Examples per training step."),
          uint_field("seed", &T::seed, "Seeds the batches drawn from the task (and nothing else)."),
          int_field("evalSize", &T::eval_size, 1, 65536, "Held-out examples that evaluate() scores."),
      },
      {}};
  return schema;
}

namespace {

TrainingBatch batch_of(const std::vector<Example>& examples, int seq) {
  TrainingBatch b;
  b.input.batch = static_cast<int>(examples.size());
  b.input.seq = seq;
  for (const Example& e : examples) {
    b.input.ids.insert(b.input.ids.end(), e.ids.begin(), e.ids.end());
    b.targets.insert(b.targets.end(), e.targets.begin(), e.targets.end());
  }
  return b;
}

double ratio(int a, int b) { return b > 0 ? static_cast<double>(a) / b : 0.0; }

}  // namespace

Trainer::Trainer(std::shared_ptr<Transformer> model, const OptimizerOptions& optimizer, const TrainerSettings& settings,
                 std::unique_ptr<Task> task)
    : model_(std::move(model)),
      optimizer_(optimizer),
      settings_(settings),
      task_(std::move(task)),
      rng_(static_cast<std::uint64_t>(settings.seed) * 0xD1B54A32D192ED03ull + 0x8CB92BA72F3D8DD7ull) {
  if (task_)
    held_out_ =
        task_->evaluation_set(static_cast<std::uint64_t>(settings.seed) ^ 0x5851F42D4C957F2Dull, settings_.eval_size);
}

Result<std::unique_ptr<Trainer>> Trainer::create(std::shared_ptr<Transformer> model, const OptimizerOptions& optimizer,
                                                 const TrainerSettings& settings, std::unique_ptr<Task> task) {
  if (Status s = check(optimizer_schema(), optimizer); !s) return s.error_value();
  if (Status s = check(trainer_schema(), settings); !s) return s.error_value();
  const ModelSpec& spec = model->spec();
  if (Status s = model->writable(); !s) return s.error_value();  // weights held in 16 or 8 bits
  if (spec.head == OutputHead::None || spec.mlm_head())
    return Error{"training needs a model with an output head 'linear' or 'tied'", error_code::kInvalidArgument, "head"};
  if (spec.type_vocab_size > 0 || spec.embed_norm)
    return Error{
        "training does not support token types or an embedding LayerNorm (the parts of pretrained BERT models)",
        error_code::kInvalidArgument, spec.embed_norm ? "embedNorm" : "typeVocabSize"};
  if (task) {
    if (spec.encoder_decoder())
      return Error{"the tasks train a single causal stack: use encoderLayers 0 (or give batches yourself)",
                   error_code::kInvalidArgument, "encoderLayers"};
    if (!spec.causal)
      return Error{"the tasks are next-token prediction: the model must be causal, or it could read the answers",
                   error_code::kInvalidArgument, "causal"};
    if (task->vocab_size() > spec.vocab_size)
      return Error{"the task has " + std::to_string(task->vocab_size()) + " tokens but the model's vocabSize is " +
                       std::to_string(spec.vocab_size),
                   error_code::kOutOfRange, "vocabSize"};
    if (task->seq_len() > spec.max_seq)
      return Error{"the task's sequences have " + std::to_string(task->seq_len()) + " tokens" +
                       (task->seq_len() != task->train_seq_len() ? " (the held-out ones, with evalLength)" : "") +
                       " but the model's maxSeq is " + std::to_string(spec.max_seq),
                   error_code::kOutOfRange, "maxSeq"};
  }
  return std::unique_ptr<Trainer>(new Trainer(std::move(model), optimizer, settings, std::move(task)));
}

TrainingBatch Trainer::draw_batch() {
  std::vector<Example> examples;
  for (int i = 0; i < settings_.batch_size; ++i) examples.push_back(task_->draw(rng_, false));
  return batch_of(examples, task_->train_seq_len());
}

Result<StepReport> Trainer::step() {
  if (!task_) return Error{"this trainer has no task: give step() a batch", error_code::kInvalidArgument, "task"};
  return step(draw_batch());
}

Result<StepReport> Trainer::step(const TrainingBatch& batch) {
  Result<LossResult> r = loss_and_gradients(*model_, batch);
  if (!r) return r.error_value();
  const double norm = gradient_norm(*model_);
  if (!std::isfinite(r.value().loss) || !std::isfinite(norm)) {
    model_->visit_parameters([](Parameter& p) { std::fill(p.grad.begin(), p.grad.end(), 0.0f); });
    return Error{"training diverged at step " + std::to_string(optimizer_.steps() + 1) + ": the " +
                     (std::isfinite(r.value().loss) ? "gradient" : "loss") +
                     " is not finite. The model keeps its last finite parameters; lower the learning rate or clip "
                     "the gradients",
                 error_code::kDiverged, "lr"};
  }
  const AdamW::StepInfo info = optimizer_.step(*model_);
  StepReport report;
  report.step = optimizer_.steps();
  report.loss = r.value().loss;
  report.accuracy = ratio(r.value().correct, r.value().counted);
  report.sequence_accuracy = ratio(r.value().correct_sequences, r.value().sequences);
  report.grad_norm = info.grad_norm;
  report.lr = info.lr;
  return report;
}

Result<Evaluation> Trainer::evaluate(const std::vector<HeadRef>& ablated_heads) {
  if (!task_) return Error{"this trainer has no task to evaluate on", error_code::kInvalidArgument, "task"};
  if (Status s = model_->check_ablated_heads(ablated_heads); !s) return s.error_value();
  Evaluation e;
  double weighted_loss = 0.0;
  int counted = 0, correct = 0, sequences = 0, correct_sequences = 0;
  // In chunks of the batch size, so memory stays what a training step needs; held-out examples
  // may be longer than the training ones (evalLength).
  for (std::size_t start = 0; start < held_out_.size(); start += static_cast<std::size_t>(settings_.batch_size)) {
    const std::size_t end = std::min(held_out_.size(), start + static_cast<std::size_t>(settings_.batch_size));
    const std::vector<Example> chunk(held_out_.begin() + static_cast<std::ptrdiff_t>(start),
                                     held_out_.begin() + static_cast<std::ptrdiff_t>(end));
    Result<LossResult> r =
        loss_only(*model_, batch_of(chunk, static_cast<int>(chunk.front().ids.size())), Backend::Fast, ablated_heads);
    if (!r) return r.error_value();
    weighted_loss += r.value().loss * r.value().counted;
    counted += r.value().counted;
    correct += r.value().correct;
    sequences += r.value().sequences;
    correct_sequences += r.value().correct_sequences;
  }
  e.loss = counted ? weighted_loss / counted : 0.0;
  e.accuracy = ratio(correct, counted);
  e.sequence_accuracy = ratio(correct_sequences, sequences);
  e.examples = static_cast<int>(held_out_.size());
  return e;
}

Trainer::Snapshot Trainer::snapshot() const {
  Snapshot s;
  model_->visit_parameters([&](const Parameter& p) { s.parameters.push_back(p.values()); });
  s.optimizer = optimizer_.state();
  s.rng = rng_;
  return s;
}

void Trainer::restore(const Snapshot& s) {
  std::size_t i = 0;
  model_->visit_parameters([&](Parameter& p) { p = s.parameters[i++]; });
  optimizer_.restore(s.optimizer);
  rng_ = s.rng;
}

}  // namespace attention
