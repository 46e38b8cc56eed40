#pragma once
// The key/value cache of incremental decoding (a causal single stack): per layer and per
// sequence, the rotated keys and the values of every position seen so far, so that a new
// token costs one row (its projections, and its query against the cached keys) instead of
// a full forward over the whole text.
//
// Logically each layer holds K and V of shape (B, H_kv, S, d_h). Stored per sequence b as
// (H_kv, capacity, d_h) with each slot's absolute position, because the sequences of a
// batch have their own lengths: a sequence's slots hold its real tokens only, so padding
// never enters the cache. A global layer's slot is the position itself (the capacity grows
// by doubling); a sliding-window layer of window W keeps a ring of W slots (slot =
// position mod W): its cache is bounded by the window, whatever the length.
#include <cstddef>
#include <vector>

#include "attention/rope.hpp"

namespace attention {

struct SequenceKv {
  int capacity = 0;            // slots
  std::vector<float> k, v;     // (H_kv, capacity, d_h): keys after qkNorm and RoPE, values as projected
  std::vector<int> positions;  // (capacity): the absolute position in each slot, -1 = empty
};

struct LayerKvCache {
  int kv_heads = 1, head_dim = 1;
  int window = 0;                     // 0 = global (every position kept), else the ring's size
  std::vector<SequenceKv> sequences;  // (B)

  // Slots in use over the batch x slot_bytes().
  std::size_t bytes() const;
  // One slot (one position of one sequence): K and V, 2 x H_kv x d_h x 4 bytes.
  std::size_t slot_bytes() const { return 2 * sizeof(float) * static_cast<std::size_t>(kv_heads) * head_dim; }
  // Appends the keys and values of `rows` new positions of sequence b starting at
  // `first_position`: k_new and v_new are (H_kv, rows, d_h). A window layer keeps the last W.
  void append(int b, int first_position, int rows, const float* k_new, const float* v_new);
  // Room for `positions` slots in every sequence of a global layer (a window layer's ring is
  // its window), so appends up to there never re-lay the cache out; nothing is filled.
  void reserve(int positions);
};

// The most a generation's KV cache may hold (prompt + maxNewTokens positions, within the context):
// a larger budget is refused when the generation begins (limit_exceeded), so its cache never
// outgrows memory mid-generation. With parameters of at most 1.5 GiB and a call's working memory
// (transformer.hpp) it stays well inside wasm32's 4 GB (docs/limits.md).
inline constexpr std::size_t kMaxKvCacheBytes = std::size_t{512} << 20;
// The most a generation reserves for its KV cache when it begins (Generation::begin): a longer
// budget's cache grows by doubling as it fills.
inline constexpr std::size_t kMaxReservedCacheBytes = std::size_t{64} << 20;

// A model's RoPE tables over positions 0..positions-1 (transformer.hpp's rope_tables).
struct RopeTables {
  RopeTable global, local;  // local: only with ropeLocalTheta and a window
};

struct KvCache {
  std::vector<LayerKvCache> layers;
  std::vector<int> lengths;  // (B) positions seen by each sequence: its next token's position
  // RoPE's tables for the positions decoded so far, extended by doubling as they grow (a row
  // depends on its position only), so a step computes no sine or cosine: not counted in bytes().
  RopeTables rope;

  int batch() const { return static_cast<int>(lengths.size()); }
  std::vector<std::size_t> bytes_per_layer() const;
};

}  // namespace attention
