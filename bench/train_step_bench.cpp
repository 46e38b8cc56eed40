// Times one training step (forward, backward, AdamW) natively on random data, for the
// training table of npm run bench: prints one JSON line per shape.
//   train_step_bench dModel,layers,heads,ffnDim,seq,batch,vocab ...
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "attention/parallel.hpp"
#include "attention/random.hpp"
#include "attention/trainer.hpp"

using namespace attention;

int main(int argc, char** argv) {
  // THREADS=n: the parallel loops' thread count (default 1, as the table's single-thread column).
  if (const char* threads = std::getenv("THREADS")) set_max_threads(std::atoi(threads));
  for (int a = 1; a < argc; ++a) {
    std::vector<int> v;
    std::stringstream in(argv[a]);
    for (std::string part; std::getline(in, part, ',');) v.push_back(std::atoi(part.c_str()));
    if (v.size() != 7) return std::fprintf(stderr, "shape: dModel,layers,heads,ffnDim,seq,batch,vocab\n"), 2;
    ModelSpec spec;
    spec.d_model = v[0];
    spec.layers = v[1];
    spec.heads = v[2];
    spec.ffn_dim = v[3];
    spec.max_seq = v[4];
    spec.vocab_size = v[6];
    spec.causal = true;
    spec.norm = NormPlacement::Pre;
    spec.final_norm = true;
    spec.positions = Positions::Learned;
    auto model = std::make_shared<Transformer>(Transformer::create(spec).value());
    model->initialize_random(1);
    auto trainer = Trainer::create(model, OptimizerOptions{}, TrainerSettings{}, nullptr).value();
    TrainingBatch batch;
    batch.input.batch = v[5];
    batch.input.seq = v[4];
    SplitMix64 rng(7);
    for (int i = 0; i < v[4] * v[5]; ++i) {
      batch.input.ids.push_back(static_cast<int>(rng.next() % spec.vocab_size));
      batch.targets.push_back(static_cast<int>(rng.next() % spec.vocab_size));
    }
    for (int i = 0; i < 3; ++i) trainer->step(batch);  // warm-up
    std::vector<double> times;
    const auto begin = std::chrono::steady_clock::now();
    while (times.size() < 5 ||
           (times.size() < 200 && std::chrono::steady_clock::now() - begin < std::chrono::seconds(3))) {
      const auto t = std::chrono::steady_clock::now();
      trainer->step(batch);
      times.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count());
    }
    std::sort(times.begin(), times.end());
    std::printf("{\"shape\":\"%s\",\"ms\":%.3f}\n", argv[a], times[times.size() / 2]);
  }
  return 0;
}
