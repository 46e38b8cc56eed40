// Incremental decoding: the forward pass of a causal single stack over a block of new rows,
// continuing each sequence from its KV cache (kv_cache.hpp). It is forward() with the same
// embeddings, layers (cached_layer: the same sub-layers, kernels and attention), final norm
// and head; only the positions start at each sequence's cached length and the keys include
// the cached ones.
#include <algorithm>

#include "attention/transformer.hpp"

namespace attention {

using error_code::kInvalidArgument;
using error_code::kOutOfRange;
using error_code::kShapeMismatch;

KvCache Transformer::new_cache(int batch) const {
  KvCache cache;
  cache.lengths.assign(static_cast<std::size_t>(std::max(batch, 0)), 0);
  for (int l = 0; l < spec_.layers; ++l) {
    LayerKvCache layer;
    layer.kv_heads = spec_.kv_head_count();
    layer.head_dim = spec_.head_dim();
    layer.window = spec_.local_layer(l) ? spec_.window : 0;
    layer.sequences.resize(cache.lengths.size());
    cache.layers.push_back(std::move(layer));
  }
  return cache;
}

Status Transformer::check_cached(const ForwardInput& in, const KvCache& cache) const {
  const ModelSpec& s = spec_;
  if (s.encoder_decoder() || !s.causal || s.head == OutputHead::None)
    return Error{"incremental decoding needs a causal single stack with an output head (a decoder-only model)",
                 kInvalidArgument, "model"};
  if (in.batch < 1 || in.batch != cache.batch())
    return Error{
        "batch is " + std::to_string(in.batch) + ", the cache holds " + std::to_string(cache.batch()) + " sequences",
        kShapeMismatch, "batch"};
  if (cache.layers.size() != static_cast<std::size_t>(s.layers))
    return Error{"the cache is not this model's", kShapeMismatch, "cache"};
  if (in.seq < 1 || in.ids.size() != static_cast<std::size_t>(in.batch) * in.seq)
    return Error{
        "ids must hold (B, Sn) = (" + std::to_string(in.batch) + ", " + std::to_string(in.seq) + ") token ids, Sn >= 1",
        kShapeMismatch, "ids"};
  for (std::size_t i = 0; i < in.ids.size(); ++i)
    if (in.ids[i] < 0 || in.ids[i] >= s.vocab_size)
      return Error{"ids[" + std::to_string(i) + "] is " + std::to_string(in.ids[i]) + ", outside the vocabulary 0.." +
                       std::to_string(s.vocab_size - 1),
                   kOutOfRange, "ids"};
  if (!in.lengths.empty() && in.lengths.size() != static_cast<std::size_t>(in.batch))
    return Error{"lengths must have one entry per sequence", kShapeMismatch, "lengths"};
  for (int b = 0; b < in.batch; ++b) {
    const int rows = in.lengths.empty() ? in.seq : in.lengths[static_cast<std::size_t>(b)];
    if (rows < 1 || rows > in.seq)
      return Error{
          "lengths[" + std::to_string(b) + "] is " + std::to_string(rows) + ", outside 1.." + std::to_string(in.seq),
          kOutOfRange, "lengths"};
    if (cache.lengths[static_cast<std::size_t>(b)] + in.seq > s.max_seq)
      return Error{"sequence " + std::to_string(b) + " would reach " +
                       std::to_string(cache.lengths[static_cast<std::size_t>(b)] + in.seq) +
                       " positions, beyond the model's context (maxSeq " + std::to_string(s.max_seq) + ")",
                   kOutOfRange, "ids"};
  }
  return Ok{};
}

Result<Transformer::CachedStep> Transformer::forward_cached(const ForwardInput& in, KvCache& cache,
                                                            Backend backend) const {
  CachedStep out;
  if (Status st = forward_cached(in, cache, backend, out); !st) return st.error_value();
  return out;
}

Status Transformer::forward_cached(const ForwardInput& in, KvCache& cache, Backend backend, CachedStep& out) const {
  if (Status st = check_cached(in, cache); !st) return st.error_value();
  const ModelSpec& s = spec_;
  const int batch = in.batch, sn = in.seq;
  const std::vector<int> rows = in.lengths.empty() ? std::vector<int>(static_cast<std::size_t>(batch), sn) : in.lengths;
  const std::vector<int>& first = cache.lengths;
  // Each row's absolute position: (B, Sn), the padding rows continuing past the real ones.
  std::vector<int> positions(static_cast<std::size_t>(batch) * sn);
  int span = 0;
  for (int b = 0; b < batch; ++b) {
    for (int r = 0; r < sn; ++r) positions[static_cast<std::size_t>(b) * sn + r] = first[b] + r;
    span = std::max(span, first[b] + sn);
  }
  Result<Tensor> x = embed_input(in.ids, batch, sn, kDecoderStack, {}, {}, positions);
  if (!x) return x.error_value();
  // Tables made for another rotary width (a cache from another model) would be read past
  // their rows: made anew then, as when they are too short.
  if (s.positions == Positions::Rope &&
      (cache.rope.global.positions < span || cache.rope.global.rotary_dim != s.rotary_dim()))
    cache.rope = rope_tables(s, std::min(s.max_seq, std::max(span, 2 * cache.rope.global.positions)));
  const RopeTables& ropes = cache.rope;
  LayerOptions lo = layer_options(s, backend);
  std::vector<CachedBlock> blocks(layers_.size());
  for (std::size_t l = 0; l < layers_.size(); ++l) {
    const LayerPositions p = layer_positions(s, static_cast<int>(l), ropes);
    lo.rope = p.rope;
    lo.alibi = p.alibi;
    lo.window = p.window;
    Result<Tensor> y = cached_layer(x.value(), layers_[l], lo, cache.layers[l], first, rows, blocks[l]);
    if (!y) return y.error_value();
    x = std::move(y.value());
  }
  if (s.has_final_norm()) x = layer_norm(x.value(), norm_);
  // Each sequence's last real row: (B, 1, E) -> logits (B, 1, V), kept as (B, V).
  Tensor last({"B", "S", "E"}, {batch, 1, s.d_model});
  for (int b = 0; b < batch; ++b)
    std::copy_n(x.value().ptr() + (static_cast<std::size_t>(b) * sn + rows[b] - 1) * s.d_model, s.d_model,
                last.ptr() + static_cast<std::size_t>(b) * s.d_model);
  if (Status st = head_logits(last, backend, out.logits); !st) return st.error_value();
  out.logits.axes = {"B", "V"};  // (B, 1, V) read as (B, V): the same floats
  out.logits.shape = {batch, s.vocab_size};
  // Every layer succeeded: now the cache takes the block's keys and values.
  out.attention.clear();
  for (std::size_t l = 0; l < layers_.size(); ++l) {
    for (int b = 0; b < batch; ++b)
      cache.layers[l].append(b, first[b], rows[b], blocks[l].k[b].data(), blocks[l].v[b].data());
    out.attention.push_back(std::move(blocks[l].last_weights));
  }
  for (int b = 0; b < batch; ++b) cache.lengths[b] += rows[b];
  return Ok{};
}

}  // namespace attention
