// Times every GEMM and softmax variant of the registry on a few shapes, after
// warm-up, median of repeated runs; prints one JSON object per line. Built for
// native-release and for both wasm presets (run by bench/run.mjs under Node).
#include <algorithm>
#include <chrono>
#include <functional>
#include <cstdio>
#include <vector>

#include "kernels/kernels.hpp"

using namespace attention::kernels;

namespace {

double median_ms(const std::function<void()>& work, int repeats) {
  for (int i = 0; i < 3; ++i) work();  // warm-up (V8 tiers wasm up)
  std::vector<double> times;
  for (int i = 0; i < repeats; ++i) {
    const auto start = std::chrono::steady_clock::now();
    work();
    times.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

std::vector<float> filled(std::size_t n, float seed) {
  std::vector<float> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<float>(((i * 2654435761u) % 1000) / 1000.0 - 0.5) * seed;
  return v;
}

}  // namespace

int main() {
  struct Shape { int m, n, k; Layout layout; const char* what; };
  const Shape shapes[] = {
      {128, 2304, 768, Layout::NT, "QKV projection (S=128, E=768)"},
      {512, 768, 768, Layout::NT, "output projection (S=512, E=768)"},
      {512, 512, 64, Layout::NT, "Q K^T per head (S=512, d_k=64)"},
      {512, 64, 512, Layout::NN, "weights V per head (S=512, d_k=64)"},
      {256, 256, 256, Layout::NT, "square 256"},
  };
  for (const Shape& s : shapes) {
    const std::vector<float> a = filled(static_cast<std::size_t>(s.m) * s.k, 1.0f);
    const std::vector<float> b = filled(static_cast<std::size_t>(s.n) * s.k, 0.5f);
    std::vector<float> c(static_cast<std::size_t>(s.m) * s.n);
    const double flops = 2.0 * s.m * s.n * s.k;
    for (const auto& variant : gemm_variants()) {
      const bool slow = variant.name == "gemm_f32_scalar";
      const double ms = median_ms([&] { gemm(variant.fn, s.m, s.n, s.k, a.data(), b.data(), s.layout, 1.0f, nullptr, c.data()); },
                                  slow ? 3 : 15);
      std::printf("{\"kernel\":\"%s\",\"shape\":\"%s\",\"m\":%d,\"n\":%d,\"k\":%d,\"ms\":%.4f,\"gflops\":%.2f}\n",
                  variant.name.c_str(), s.what, s.m, s.n, s.k, ms, flops / ms / 1e6);
    }
  }
  const int rows = 12 * 512, n = 512;
  std::vector<float> scores = filled(static_cast<std::size_t>(rows) * n, 8.0f);
  for (const auto& variant : softmax_variants()) {
    std::vector<float> work = scores;
    const double ms = median_ms([&] { work = scores; variant.fn(work.data(), rows, n); }, 15);
    std::printf("{\"kernel\":\"%s\",\"shape\":\"%d rows x %d\",\"ms\":%.4f}\n", variant.name.c_str(), rows, n, ms);
  }
  return 0;
}
