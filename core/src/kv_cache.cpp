#include "attention/kv_cache.hpp"

#include <algorithm>

namespace attention {

std::size_t LayerKvCache::bytes() const {
  std::size_t filled = 0;
  for (const SequenceKv& s : sequences)
    filled +=
        static_cast<std::size_t>(std::count_if(s.positions.begin(), s.positions.end(), [](int p) { return p >= 0; }));
  return filled * slot_bytes();
}

namespace {

// Re-lays (H_kv, old, d_h) out as (H_kv, wanted, d_h), keeping each head's slots.
void grow(SequenceKv& s, int kv_heads, int head_dim, int wanted) {
  if (wanted <= s.capacity) return;
  const std::size_t d = static_cast<std::size_t>(head_dim);
  std::vector<float> k(static_cast<std::size_t>(kv_heads) * wanted * d), v(k.size());
  for (int h = 0; h < kv_heads; ++h) {
    std::copy_n(s.k.data() + h * s.capacity * d, s.capacity * d, k.data() + h * wanted * d);
    std::copy_n(s.v.data() + h * s.capacity * d, s.capacity * d, v.data() + h * wanted * d);
  }
  s.k = std::move(k);
  s.v = std::move(v);
  s.positions.resize(static_cast<std::size_t>(wanted), -1);
  s.capacity = wanted;
}

}  // namespace

void LayerKvCache::append(int b, int first_position, int rows, const float* k_new, const float* v_new) {
  SequenceKv& s = sequences[static_cast<std::size_t>(b)];
  const int last = first_position + rows - 1;
  if (window > 0)
    grow(s, kv_heads, head_dim, window);
  else if (last >= s.capacity)
    grow(s, kv_heads, head_dim, std::max(last + 1, 2 * s.capacity));
  const std::size_t d = static_cast<std::size_t>(head_dim);
  // A window layer needs only the last W rows of a long block (earlier ones would be overwritten).
  const int first_row = window > 0 ? std::max(0, rows - window) : 0;
  for (int r = first_row; r < rows; ++r) {
    const int position = first_position + r;
    const int slot = window > 0 ? position % window : position;
    s.positions[static_cast<std::size_t>(slot)] = position;
    for (int h = 0; h < kv_heads; ++h) {
      std::copy_n(k_new + (static_cast<std::size_t>(h) * rows + r) * d, d, s.k.data() + (h * s.capacity + slot) * d);
      std::copy_n(v_new + (static_cast<std::size_t>(h) * rows + r) * d, d, s.v.data() + (h * s.capacity + slot) * d);
    }
  }
}

void LayerKvCache::reserve(int positions) {
  for (SequenceKv& s : sequences) grow(s, kv_heads, head_dim, window > 0 ? window : positions);
}

std::vector<std::size_t> KvCache::bytes_per_layer() const {
  std::vector<std::size_t> out;
  for (const LayerKvCache& l : layers) out.push_back(l.bytes());
  return out;
}

}  // namespace attention
