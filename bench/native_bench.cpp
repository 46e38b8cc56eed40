// The native roof for `npm run bench`: multi-head self-attention through the core's
// fast path (Eigen, built with -march=native by the native-bench preset) and the
// playground's full trace, after warm-up, median of repeated runs. Arguments:
// B,S,E,H shapes; prints one JSON object per line.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "attention/model.hpp"
#include "attention/multi_head.hpp"
#include "timing.hpp"

using namespace attention;

using bench::filled;
using bench::median_ms;

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    int b, s, e, h;
    if (std::sscanf(argv[i], "%d,%d,%d,%d", &b, &s, &e, &h) != 4) return 2;
    const Tensor x({"B", "S", "E"}, {b, s, e}, filled(static_cast<std::size_t>(b) * s * e, 1.0f));
    MultiHeadWeights w;
    w.embed_dim = e;
    w.in_proj_weight = filled(static_cast<std::size_t>(3) * e * e, 0.05f);
    w.in_proj_bias = filled(static_cast<std::size_t>(3) * e, 0.1f);
    w.out_proj_weight = filled(static_cast<std::size_t>(e) * e, 0.05f);
    w.out_proj_bias = filled(static_cast<std::size_t>(e), 0.1f);
    MultiHeadOptions options;
    options.heads = h;
    const double ms = median_ms([&] { multi_head_attention(x, x, x, w, options); });
    std::printf("{\"shape\":\"%s\",\"ms\":%.5f}\n", argv[i], ms);
  }
  // The playground's own full trace: default configuration, 32 tokens, every stage kept.
  std::string text;
  for (int i = 0; i < 32; ++i) text += "w" + std::to_string(i % 13) + " ";
  Model model{ModelConfig{}};
  std::printf("{\"shape\":\"trace\",\"ms\":%.5f}\n", median_ms([&] { model.run({text}); }));
  return 0;
}
