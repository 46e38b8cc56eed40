// The host work of a generation step over a vocabulary of V = 50257 logits (GPT-2's): each
// pass of vocab_pass.hpp as the build runs it (wasm SIMD in the SIMD build) against its plain
// loop, medians in µs; then the whole greedy step's sampler work (distribution,
// argmax, ten candidates). One JSON object per line. Built only when asked for:
//   cmake --build --preset wasm-simd --target sampler_bench && node build/wasm-simd/sampler_bench.js
#include <cstdio>
#include <vector>

#include "attention/random.hpp"
#include "attention/sampler.hpp"
#include "attention/vocab_pass.hpp"
#include "timing.hpp"

using namespace attention;

namespace {

volatile double sink = 0;

void report(const char* pass, double plain_ms, double build_ms) {
  std::printf("{\"pass\": \"%s\", \"plainUs\": %.1f, \"buildUs\": %.1f, \"speedup\": %.2f}\n", pass, plain_ms * 1e3,
              build_ms * 1e3, plain_ms / build_ms);
}

}  // namespace

int main() {
  const int vocab = 50257;
  std::vector<float> logits(static_cast<std::size_t>(vocab));
  SplitMix64 rng(1);
  for (float& v : logits) v = static_cast<float>(rng.next() % 4000) * 0.01f - 100.0f;  // a spread of 40
  std::vector<double> w(static_cast<std::size_t>(vocab));
  const double top = vocab_pass::max_value_plain(logits.data(), vocab);

  report("max_value", bench::median_ms([&] { sink = vocab_pass::max_value_plain(logits.data(), vocab); }),
         bench::median_ms([&] { sink = vocab_pass::max_value(logits.data(), vocab); }));
  report("argmax", bench::median_ms([&] { sink = vocab_pass::argmax_plain(logits.data(), vocab); }),
         bench::median_ms([&] { sink = vocab_pass::argmax(logits.data(), vocab); }));
  report("exp_weights",
         bench::median_ms([&] { sink = vocab_pass::exp_weights_plain(logits.data(), vocab, 1.0, top, w.data()).sum; }),
         bench::median_ms([&] { sink = vocab_pass::exp_weights(logits.data(), vocab, 1.0, top, w.data()).sum; }));
  std::vector<double> gaps(static_cast<std::size_t>(vocab));
  for (int i = 0; i < vocab; ++i) gaps[i] = logits[i] - top;
  report("exp_each (the weights' exp without the sums)",
         bench::median_ms([&] { vocab_pass::exp_each_plain(gaps.data(), vocab, w.data()); }),
         bench::median_ms([&] { vocab_pass::exp_each(gaps.data(), vocab, w.data()); }));
  report("next_above (all below)",
         bench::median_ms([&] { sink = vocab_pass::next_above_plain(w.data(), 0, vocab, 2.0); }),
         bench::median_ms([&] { sink = vocab_pass::next_above(w.data(), 0, vocab, 2.0); }));

  // A greedy step's sampler work as Generation::step does it (temperature 1 shown).
  SamplerSettings shown, greedy;
  greedy.temperature = 0;
  Sampler sampler(greedy);
  Distribution d;
  const std::vector<int> history(128, 5);
  const double step_ms = bench::median_ms([&] {
    sampling_distribution_and_entropy(logits.data(), vocab, shown, history, d);
    sink = sampler.next(d, logits.data(), vocab, history) + top_candidates(d, 10).size() + d.entropy;
  });
  std::printf("{\"pass\": \"greedy step (distribution, argmax, 10 candidates)\", \"buildUs\": %.1f}\n", step_ms * 1e3);
}
