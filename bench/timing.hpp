#pragma once
// Shared by the C++ benchmarks: the median of repeated runs after warm-up, and
// deterministic test data.
#include <algorithm>
#include <chrono>
#include <functional>
#include <vector>

namespace bench {

// Warm up (V8 tiers wasm up while it runs), then time at least min_runs and about a second.
inline double median_ms(const std::function<void()>& work, int min_runs = 15) {
  for (int i = 0; i < 5; ++i) work();
  std::vector<double> times;
  const auto begin = std::chrono::steady_clock::now();
  while (static_cast<int>(times.size()) < min_runs ||
         (times.size() < 1000 && std::chrono::steady_clock::now() - begin < std::chrono::seconds(1))) {
    const auto start = std::chrono::steady_clock::now();
    work();
    times.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

// Values in [-scale/2, scale/2), the same on every platform.
inline std::vector<float> filled(std::size_t n, float scale) {
  std::vector<float> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<float>(((i * 2654435761u) % 1000) / 1000.0 - 0.5) * scale;
  return v;
}

}  // namespace bench
