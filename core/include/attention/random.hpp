#pragma once
// A tiny deterministic generator (SplitMix64). Weights and embeddings must be the
// same bit for bit in the native and the wasm builds, so no <random>
// distributions, whose output differs between standard libraries.
#include <cstdint>
#include <string_view>

namespace attention {

class SplitMix64 {
 public:
  explicit SplitMix64(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  // Uniform in [-1, 1), from the top 24 bits: exactly representable in float.
  float symmetric_unit() { return static_cast<float>(next() >> 40) * (2.0f / 16777216.0f) - 1.0f; }

 private:
  std::uint64_t state_;
};

// FNV-1a, for turning a token's text into a seed.
inline std::uint64_t hash_text(std::string_view text) {
  std::uint64_t h = 0xCBF29CE484222325ull;
  for (unsigned char c : text) {
    h ^= c;
    h *= 0x100000001B3ull;
  }
  return h;
}

}  // namespace attention
