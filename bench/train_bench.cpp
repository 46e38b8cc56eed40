// Trains a task natively and prints progress as JSON lines: how fast steps run and how
// soon a task is learned (npm run bench reads it beside the wasm and peer figures).
//   train_bench [task] [steps] [dModel] [layers] [heads] [ffnDim] [batch] [lr] [length] [symbols] [weightDecay]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "attention/trainer.hpp"

using namespace attention;

int main(int argc, char** argv) {
  const auto arg = [&](int i, const char* fallback) { return std::string(argc > i ? argv[i] : fallback); };
  TaskOptions task_options;
  task_options.name = arg(1, "sort");
  if (argc > 9) task_options.length = std::atoi(argv[9]);
  if (argc > 10) task_options.symbols = task_options.modulus = std::atoi(argv[10]);
  const int steps = std::atoi(arg(2, "400").c_str());
  Result<std::unique_ptr<Task>> task = make_task(task_options);
  if (!task) return std::fprintf(stderr, "%s\n", task.error().c_str()), 1;
  ModelSpec spec;
  spec.vocab_size = task.value()->vocab_size();
  spec.max_seq = task.value()->seq_len();
  spec.d_model = std::atoi(arg(3, "64").c_str());
  spec.layers = std::atoi(arg(4, "2").c_str());
  spec.heads = std::atoi(arg(5, "4").c_str());
  spec.ffn_dim = std::atoi(arg(6, "256").c_str());
  spec.causal = true;
  spec.norm = NormPlacement::Pre;
  spec.final_norm = true;
  spec.positions = Positions::Learned;
  auto model = std::make_shared<Transformer>(Transformer::create(spec).value());
  model->initialize_random(1);
  OptimizerOptions opt;
  opt.lr = std::atof(arg(8, "3e-3").c_str());
  opt.weight_decay = argc > 11 ? std::atof(argv[11]) : 0.0;
  opt.warmup = 20;
  if (std::getenv("COSINE")) {  // decay to 0 by the last step
    opt.schedule = Schedule::Cosine;
    opt.total_steps = steps;
  }
  TrainerSettings settings;
  settings.batch_size = std::atoi(arg(7, "32").c_str());
  Result<std::unique_ptr<Trainer>> made = Trainer::create(model, opt, settings, std::move(task.value()));
  if (!made) return std::fprintf(stderr, "%s\n", made.error().c_str()), 1;
  Trainer& trainer = *made.value();
  const auto start = std::chrono::steady_clock::now();
  for (int s = 1; s <= steps; ++s) {
    Result<StepReport> r = trainer.step();
    if (!r) return std::fprintf(stderr, "%s\n", r.error().c_str()), 1;
    if (s % 50 == 0 || s == steps) {
      const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      const Evaluation e = trainer.evaluate().value();
      std::printf("{\"step\":%d,\"loss\":%.4f,\"eval_loss\":%.4f,\"accuracy\":%.4f,\"sequence_accuracy\":%.4f,\"seconds\":%.2f,\"steps_per_second\":%.1f}\n",
                  s, r.value().loss, e.loss, e.accuracy, e.sequence_accuracy, seconds, s / seconds);
      std::fflush(stdout);
    }
  }
  return 0;
}
