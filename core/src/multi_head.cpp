#include "attention/multi_head.hpp"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <algorithm>
#include <string>

#include "attention/attention.hpp"
#include "attention/linear.hpp"
#include "attention/masks.hpp"

namespace attention {

namespace {

std::string size_text(std::size_t n) { return std::to_string(n); }

bool all_finite(const std::vector<float>& values) {
  // NaN and +-inf are the floats whose exponent bits are all ones; an integer test
  // without branches, which the compiler vectorizes.
  std::uint32_t non_finite = 0;
  for (float v : values) {
    std::uint32_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    non_finite |= static_cast<std::uint32_t>((bits & 0x7F800000u) == 0x7F800000u);
  }
  return non_finite == 0;
}

// NaN or Infinity in an input has no meaningful attention: name the first one.
Status check_finite(const char* name, const std::vector<float>& values) {
  if (all_finite(values)) return Ok{};
  for (std::size_t i = 0; i < values.size(); ++i)
    if (!std::isfinite(values[i]))
      return Error{std::string(name) + "[" + std::to_string(i) + "] is " +
                   (std::isnan(values[i]) ? "NaN" : values[i] > 0 ? "Infinity" : "-Infinity") +
                   "; inputs must be finite numbers"};
  return Ok{};
}


// Finite inputs can still overflow float32 (|x| ~ 3e38 makes projections infinite,
// q.k of ~1e30 values is 1e60): report it rather than hand back Infinity, NaN or
// a silently meaningless result.
Error overflow(const char* where) {
  return Error{std::string("numeric overflow: ") + where + " are not finite in float32 because the inputs or " +
               "weights are too large (keep |values| well below 1e18)"};
}

Status check_inputs(const Tensor& query, const Tensor& key, const Tensor& value, const MultiHeadWeights& w,
                    const MultiHeadOptions& options) {
  if (query.rank() != 3 || key.rank() != 3 || value.rank() != 3)
    return Error{"query, key and value must each have shape (B, S, E)"};
  const int batch = query.shape[0], e = query.shape[2];
  if (e <= 0) return Error{"embed_dim must be positive, got " + std::to_string(e)};
  if (options.heads <= 0) return Error{"heads must be positive, got " + std::to_string(options.heads)};
  if (e % options.heads != 0)
    return Error{"embed_dim " + std::to_string(e) + " is not divisible by heads " + std::to_string(options.heads)};
  if (key.shape[0] != batch || value.shape[0] != batch)
    return Error{"query, key and value must have the same batch size"};
  if (key.shape[2] != e || value.shape[2] != e)
    return Error{"key and value must have embed_dim " + std::to_string(e)};
  if (key.shape[1] != value.shape[1]) return Error{"key and value must have the same sequence length"};
  if (w.embed_dim != e)
    return Error{"weights are for embed_dim " + std::to_string(w.embed_dim) + ", input has " + std::to_string(e)};
  const std::size_t ue = static_cast<std::size_t>(e);
  if (w.in_proj_weight.size() != 3 * ue * ue)
    return Error{"in_proj_weight has " + size_text(w.in_proj_weight.size()) + " values, expected (3E, E) = " +
                 size_text(3 * ue * ue)};
  if (w.in_proj_bias.size() != 3 * ue)
    return Error{"in_proj_bias has " + size_text(w.in_proj_bias.size()) + " values, expected 3E = " +
                 size_text(3 * ue)};
  if (w.out_proj_weight.size() != ue * ue)
    return Error{"out_proj_weight has " + size_text(w.out_proj_weight.size()) + " values, expected (E, E) = " +
                 size_text(ue * ue)};
  if (w.out_proj_bias.size() != ue)
    return Error{"out_proj_bias has " + size_text(w.out_proj_bias.size()) + " values, expected E = " + size_text(ue)};
  for (Status s : {check_finite("query", query.data), check_finite("key", key.data), check_finite("value", value.data),
                   check_finite("in_proj_weight", w.in_proj_weight), check_finite("in_proj_bias", w.in_proj_bias),
                   check_finite("out_proj_weight", w.out_proj_weight), check_finite("out_proj_bias", w.out_proj_bias)})
    if (!s) return s;
  return Ok{};
}

// One third of in_proj applied to x: (B, S, E) -> (B, S, E)
Tensor project(const Tensor& x, const MultiHeadWeights& w, int part, const std::string& seq_axis, Backend backend) {
  const int e = w.embed_dim;
  Tensor y({"B", seq_axis, "E"}, {x.shape[0], x.shape[1], e});
  const std::size_t offset = static_cast<std::size_t>(part) * e;
  linear_rows(x.ptr(), x.shape[0] * x.shape[1], e, w.in_proj_weight.data() + offset * e,
              w.in_proj_bias.data() + offset, e, y.ptr(), backend);
  return y;
}

// Self-attention: one (rows, E) x (E, 3E) product for Q, K and V together, then
// split. x: (B, S, E) -> q, k, v: (B, S, E)
void project_fused(const Tensor& x, const MultiHeadWeights& w, Backend backend, Tensor& q, Tensor& k, Tensor& v) {
  const int e = w.embed_dim, rows = x.shape[0] * x.shape[1];
  std::vector<float> qkv(static_cast<std::size_t>(rows) * 3 * e);
  linear_rows(x.ptr(), rows, e, w.in_proj_weight.data(), w.in_proj_bias.data(), 3 * e, qkv.data(), backend,
              w.packed_in_proj.get());
  Tensor* parts[3] = {&q, &k, &v};
  for (int part = 0; part < 3; ++part) {
    *parts[part] = Tensor({"B", part == 0 ? "Sq" : "Sk", "E"}, {x.shape[0], x.shape[1], e});
    float* out = parts[part]->ptr();
    for (int r = 0; r < rows; ++r)
      std::copy_n(qkv.data() + static_cast<std::size_t>(r) * 3 * e + part * e, e, out + static_cast<std::size_t>(r) * e);
  }
}

}  // namespace

void prepare(MultiHeadWeights& w) {
  w.packed_in_proj = pack_weight(w.in_proj_weight, 3 * w.embed_dim, w.embed_dim);
  w.packed_out_proj = pack_weight(w.out_proj_weight, w.embed_dim, w.embed_dim);
}

Tensor view_as_heads(const Tensor& x, int heads) {
  return Tensor({x.axes[0], x.axes[1], "H", "d_k"}, {x.shape[0], x.shape[1], heads, x.shape[2] / heads}, x.data);
}

Tensor split_heads(const Tensor& x, int heads) {
  const int batch = x.shape[0], seq = x.shape[1], dk = x.shape[2] / heads;
  Tensor out({"B", "H", x.axes[1], "d_k"}, {batch, heads, seq, dk});
  // (b, s, h*d_k + d) -> (b, h, s, d): move each head's d_k-wide slice of each row.
  for (int b = 0; b < batch; ++b)
    for (int s = 0; s < seq; ++s) {
      const float* row = x.ptr() + (static_cast<std::size_t>(b) * seq + s) * heads * dk;
      for (int h = 0; h < heads; ++h)
        std::copy_n(row + h * dk, dk, out.ptr() + ((static_cast<std::size_t>(b) * heads + h) * seq + s) * dk);
    }
  return out;
}

Tensor merge_heads(const Tensor& x) {
  const int batch = x.shape[0], heads = x.shape[1], seq = x.shape[2], dk = x.shape[3];
  Tensor out({"B", x.axes[2], "E"}, {batch, seq, heads * dk});
  for (int b = 0; b < batch; ++b)
    for (int h = 0; h < heads; ++h)
      for (int s = 0; s < seq; ++s)
        std::copy_n(x.ptr() + ((static_cast<std::size_t>(b) * heads + h) * seq + s) * dk, dk,
                    out.ptr() + (static_cast<std::size_t>(b) * seq + s) * heads * dk + h * dk);
  return out;
}

Result<MultiHeadResult> multi_head_attention(const Tensor& query, const Tensor& key, const Tensor& value,
                                             const MultiHeadWeights& w, const MultiHeadOptions& options,
                                             const Recorder& recorder) {
  if (Status status = check_inputs(query, key, value, w, options); !status) return Error{status.error()};
  const int batch = query.shape[0], sq = query.shape[1], sk = key.shape[1], e = query.shape[2];
  const int heads = options.heads;

  // Masks: causal and user masks are (Sq, Sk); padding is (B, Sk); all meet in (B, Sq, Sk).
  Tensor causal;
  const Tensor* attn_mask_ptr = options.attn_mask;
  if (options.causal) {
    causal = causal_mask(sq, sk);
    if (!options.attn_mask) {
      attn_mask_ptr = &causal;
    } else if (options.attn_mask->shape == causal.shape) {
      causal = union_of(causal, *options.attn_mask);
      attn_mask_ptr = &causal;
    }  // else: a user mask of the wrong shape, which combine_masks reports
  }
  Result<Tensor> blocked = combine_masks(batch, sq, sk, options.key_padding_mask, attn_mask_ptr);
  if (!blocked) return Error{blocked.error()};
  const bool any_blocked = options.key_padding_mask || attn_mask_ptr;

  Tensor q, k, v;
  if (&query == &key && &key == &value) {
    project_fused(query, w, options.backend, q, k, v);
  } else {
    q = project(query, w, 0, "Sq", options.backend);
    k = project(key, w, 1, "Sk", options.backend);
    v = project(value, w, 2, "Sk", options.backend);
  }
  if (!all_finite(q.data) || !all_finite(k.data) || !all_finite(v.data)) return overflow("the Q, K, V projections");
  Tensor q_heads = split_heads(q, heads);
  Tensor k_heads = split_heads(k, heads);
  Tensor v_heads = split_heads(v, heads);

  AttentionStages st = scaled_dot_product_attention(q_heads, k_heads, v_heads,
                                                    any_blocked ? &blocked.value() : nullptr, options.scale,
                                                    options.backend, recorder.active());
  // +inf scores are fine (softmax takes the limit); NaN means +inf met -inf in a dot product.
  if (st.nan_scores) return overflow("the scores Q K^T");
  st.output.axes = {"B", "H", "Sq", "d_k"};
  Tensor merged = merge_heads(st.output);
  Tensor output({"B", "Sq", "E"}, {batch, sq, e});
  linear_rows(merged.ptr(), batch * sq, e, w.out_proj_weight.data(), w.out_proj_bias.data(), e, output.ptr(),
              options.backend, w.packed_out_proj.get());

  if (recorder.active()) {  // in computation order; what is not returned is moved, not copied
    Tensor q_split = view_as_heads(q, heads);
    recorder.record("q_proj", std::move(q));
    recorder.record("k_proj", std::move(k));
    recorder.record("v_proj", std::move(v));
    recorder.record("q_split", std::move(q_split));
    recorder.record("q_heads", std::move(q_heads));
    recorder.record("k_heads", std::move(k_heads));
    recorder.record("v_heads", std::move(v_heads));
    recorder.record("mask", std::move(blocked.value()));
    recorder.record("scores", std::move(st.scores));
    recorder.record("scaled", std::move(st.scaled));
    recorder.record("masked", std::move(st.masked));
    recorder.record("weights", st.weights);
    recorder.record("context", std::move(st.output));
    recorder.record("merged", std::move(merged));
    recorder.record("output", output);
  }
  if (!all_finite(output.data)) return overflow("the outputs");
  return MultiHeadResult{std::move(output), std::move(st.weights)};
}

}  // namespace attention
