#include "attention/multi_head.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>

#include "attention/attention.hpp"
#include "attention/linear.hpp"
#include "attention/masks.hpp"
#include "attention/numeric.hpp"
#include "attention/parallel.hpp"
#include "attention/positional.hpp"
#include "kernels/kernels.hpp"

namespace attention {

namespace {

using error_code::kShapeMismatch;

std::string size_text(std::size_t n) { return std::to_string(n); }

Status check_size(const char* name, const Parameter& p, std::size_t expected, const std::string& shape) {
  if (p.size() == expected) return Ok{};
  return Error{
      std::string(name) + " has " + size_text(p.size()) + " values, expected " + shape + " = " + size_text(expected),
      kShapeMismatch, name};
}

// An optional bias: empty (bias=False) or exactly `expected` values.
Status check_bias(const char* name, const Parameter& p, std::size_t expected, const std::string& shape) {
  return p.empty() ? Status(Ok{}) : check_size(name, p, expected, shape);
}

Status check_weights(const MultiHeadWeights& w, int e, const HeadShape& hs) {
  const std::size_t ue = static_cast<std::size_t>(e);
  const std::size_t kd = static_cast<std::size_t>(w.key_dim()), vd = static_cast<std::size_t>(w.value_dim());
  const std::size_t qd = static_cast<std::size_t>(hs.q_dim()), kvd = static_cast<std::size_t>(hs.kv_dim());
  const std::size_t all = qd + 2 * kvd;
  const bool classic = qd == ue && kvd == ue;
  if (w.separate_projections()) {
    if (!classic)
      return Error{"separate key/value widths (kdim, vdim) need one K/V head per head of dModel / heads",
                   kShapeMismatch, "kdim"};
    for (Status s : {check_size("q_proj_weight", w.q_proj_weight, ue * ue, "(E, E)"),
                     check_size("k_proj_weight", w.k_proj_weight, ue * kd, "(E, kdim)"),
                     check_size("v_proj_weight", w.v_proj_weight, ue * vd, "(E, vdim)")})
      if (!s) return s;
  } else if (Status s = check_size("in_proj_weight", w.in_proj_weight, all * ue,
                                   classic ? "(3E, E)" : "((H + 2 H_kv) d_h, E)");
             !s) {
    return s;
  }
  for (Status s : {check_bias("in_proj_bias", w.in_proj_bias, all, classic ? "3E" : "(H + 2 H_kv) d_h"),
                   check_size("out_proj_weight", w.out_proj_weight, ue * qd, classic ? "(E, E)" : "(E, H d_h)"),
                   check_bias("out_proj_bias", w.out_proj_bias, ue, "E"),
                   check_bias("q_norm.weight", w.q_norm.weight, static_cast<std::size_t>(hs.head_dim), "d_h"),
                   check_bias("k_norm.weight", w.k_norm.weight, static_cast<std::size_t>(hs.head_dim), "d_h")})
    if (!s) return s;
  for (const auto& [name, p] : {std::pair{"in_proj_weight", &w.in_proj_weight},
                                {"q_proj_weight", &w.q_proj_weight},
                                {"k_proj_weight", &w.k_proj_weight},
                                {"v_proj_weight", &w.v_proj_weight},
                                {"in_proj_bias", &w.in_proj_bias},
                                {"out_proj_weight", &w.out_proj_weight},
                                {"out_proj_bias", &w.out_proj_bias},
                                {"q_norm.weight", &w.q_norm.weight},
                                {"k_norm.weight", &w.k_norm.weight}})
    if (!p->all_finite()) {  // names the element
      const std::vector<float> widened = p->low_bit() ? p->widened() : std::vector<float>{};
      return check_finite(name, p->low_bit() ? widened.data() : p->data(), p->size());
    }
  return Ok{};
}

Status check_inputs(const Tensor& query, const Tensor& key, const Tensor& value, const MultiHeadWeights& w,
                    const MultiHeadOptions& options) {
  if (query.rank() != 3 || key.rank() != 3 || value.rank() != 3)
    return Error{"query, key and value must each have shape (B, S, features)", kShapeMismatch, "query"};
  const int batch = query.shape[0], e = query.shape[2];
  if (e <= 0)
    return Error{"embed_dim must be positive, got " + std::to_string(e), error_code::kOutOfRange, "embed_dim"};
  if (options.heads <= 0)
    return Error{"heads must be positive, got " + std::to_string(options.heads), error_code::kOutOfRange, "heads"};
  if (options.head_dim < 0 || options.kv_heads < 0)
    return Error{"head_dim and kv_heads must not be negative", error_code::kOutOfRange,
                 options.head_dim < 0 ? "head_dim" : "kv_heads"};
  if (options.head_dim == 0 && e % options.heads != 0)
    return Error{"embed_dim " + std::to_string(e) + " is not divisible by heads " + std::to_string(options.heads),
                 error_code::kNotDivisible, "heads"};
  if (options.kv_heads > 0 && options.heads % options.kv_heads != 0)
    return Error{
        "kv_heads " + std::to_string(options.kv_heads) + " does not divide heads " + std::to_string(options.heads),
        error_code::kNotDivisible, "kv_heads"};
  const HeadShape hs = head_shape(options, e);
  if (options.rope && (options.rope->rotary_dim > hs.head_dim || options.rope->positions < query.shape[1] ||
                       options.rope->positions < key.shape[1]))
    return Error{"the RoPE table is too small for these heads or sequences", kShapeMismatch, "rope"};
  if (key.shape[0] != batch || value.shape[0] != batch)
    return Error{"query, key and value must have the same batch size", kShapeMismatch, "key"};
  if (w.embed_dim != e)
    return Error{"weights are for embed_dim " + std::to_string(w.embed_dim) + ", input has " + std::to_string(e),
                 kShapeMismatch, "query"};
  if (key.shape[2] != w.key_dim())
    return Error{
        "key must have " + std::to_string(w.key_dim()) + " features (kdim), got " + std::to_string(key.shape[2]),
        kShapeMismatch, "key"};
  if (value.shape[2] != w.value_dim())
    return Error{
        "value must have " + std::to_string(w.value_dim()) + " features (vdim), got " + std::to_string(value.shape[2]),
        kShapeMismatch, "value"};
  if (key.shape[1] != value.shape[1])
    return Error{"key and value must have the same sequence length", kShapeMismatch, "value"};
  if (Status s = check_weights(w, e, hs); !s) return s;
  for (Status s : {check_finite("query", query.ptr(), query.size()), check_finite("key", key.ptr(), key.size()),
                   check_finite("value", value.ptr(), value.size())})
    if (!s) return s;
  for (std::size_t i = 0; i < options.ablated_heads.size(); ++i)
    if (options.ablated_heads[i] < 0 || options.ablated_heads[i] >= options.heads)
      return Error{"ablated_heads[" + std::to_string(i) + "] is " + std::to_string(options.ablated_heads[i]) +
                       ", outside the heads 0.." + std::to_string(options.heads - 1),
                   error_code::kOutOfRange, "ablated_heads"};
  if (options.attn_bias) {
    const Tensor& b = *options.attn_bias;
    if (b.shape != std::vector<int>{query.shape[1], key.shape[1]})
      return Error{"the float attn_mask must have shape (Sq, Sk) = (" + std::to_string(query.shape[1]) + ", " +
                       std::to_string(key.shape[1]) + ")",
                   kShapeMismatch, "attn_mask"};
    for (std::size_t i = 0; i < b.size(); ++i)  // -inf blocks; NaN and +inf mean nothing
      if (std::isnan(b.data[i]) || b.data[i] == INFINITY)
        return Error{"attn_mask[" + std::to_string(i) + "] is " + (std::isnan(b.data[i]) ? "NaN" : "Infinity") +
                         "; a float mask holds finite numbers or -Infinity",
                     error_code::kNonFinite, "attn_mask"};
  }
  return Ok{};
}

// Rows [begin, begin + count) of in_proj (and its bias) that make part 0 = Q, 1 = K, 2 = V.
struct PartRows {
  int begin, count;
};
PartRows part_rows(const HeadShape& hs, int part) {
  if (part == 0) return {0, hs.q_dim()};
  return {hs.q_dim() + (part - 1) * hs.kv_dim(), hs.kv_dim()};
}

const float* bias_rows(const Parameter& bias, int begin) {
  return bias.empty() ? nullptr : bias.data() + static_cast<std::size_t>(begin);
}

// The projection of one input: part 0 = Q, 1 = K, 2 = V. x: (B, S, in) -> (B, S, rows of the part)
Tensor project(const Tensor& x, const MultiHeadWeights& w, const HeadShape& hs, int part, const std::string& seq_axis,
               Backend backend) {
  const int in = x.shape[2];
  const Parameter* weight = &w.in_proj_weight;
  PartRows rows = part_rows(hs, part);
  const int bias_begin = rows.begin;
  if (w.separate_projections()) {
    weight = part == 0 ? &w.q_proj_weight : part == 1 ? &w.k_proj_weight : &w.v_proj_weight;
    rows.begin = 0;
  }
  Tensor y({"B", seq_axis, "E"}, {x.shape[0], x.shape[1], rows.count});
  linear_parameter_rows(x.ptr(), x.shape[0] * x.shape[1], in, *weight, rows.begin,
                        bias_rows(w.in_proj_bias, bias_begin), rows.count, y.ptr(), backend);
  return y;
}

// Parts [first, first + count) of in_proj in one (rows, E) x (E, width) product, then
// split: self-attention fuses Q, K and V (count 3), cross-attention K and V (count 2).
// x: (B, S, E) -> outs[i]: (B, S, rows of the part)
void project_fused(const Tensor& x, const MultiHeadWeights& w, const HeadShape& hs, int first, int count,
                   Backend backend, const char* seq_axis, Tensor* outs[]) {
  const int e = w.embed_dim, rows = x.shape[0] * x.shape[1];
  const int begin = part_rows(hs, first).begin;
  const PartRows last = part_rows(hs, first + count - 1);
  const int width = last.begin + last.count - begin;
  std::vector<float> fused(static_cast<std::size_t>(rows) * width);
  linear_parameter_rows(x.ptr(), rows, e, w.in_proj_weight, begin, bias_rows(w.in_proj_bias, begin), width,
                        fused.data(), backend);
  for (int part = 0; part < count; ++part) {
    const PartRows pr = part_rows(hs, first + part);
    *outs[part] = Tensor({"B", first + part == 0 ? "Sq" : seq_axis, "E"}, {x.shape[0], x.shape[1], pr.count});
    float* out = outs[part]->ptr();
    for (int r = 0; r < rows; ++r)
      std::copy_n(fused.data() + static_cast<std::size_t>(r) * width + (pr.begin - begin), pr.count,
                  out + static_cast<std::size_t>(r) * pr.count);
  }
}

// (B, H, Sq, Sk) -> (B, Sq, Sk): the mean over heads, as average_attn_weights=True.
Tensor average_heads(const Tensor& w) {
  const int batch = w.shape[0], heads = w.shape[1], sq = w.shape[2], sk = w.shape[3];
  Tensor out({"B", "Sq", "Sk"}, {batch, sq, sk});
  const std::size_t block = static_cast<std::size_t>(sq) * sk;
  for (int b = 0; b < batch; ++b)
    for (int h = 0; h < heads; ++h) {
      const float* src = w.ptr() + (static_cast<std::size_t>(b) * heads + h) * block;
      float* dst = out.ptr() + b * block;
      for (std::size_t i = 0; i < block; ++i) dst[i] += src[i];
    }
  for (float& v : out.data) v /= static_cast<float>(heads);
  return out;
}

}  // namespace

void zero_heads(Tensor& context, const std::vector<int>& heads) {
  const int batch = context.shape[0], count = context.shape[1];
  const std::size_t block = static_cast<std::size_t>(context.shape[2]) * context.shape[3];  // (Sq, d_v)
  for (int h : heads)
    for (int b = 0; b < batch; ++b)
      std::fill_n(context.ptr() + (static_cast<std::size_t>(b) * count + h) * block, block, 0.0f);
}

void ablate_heads(Tensor& context, const MultiHeadOptions& options) {
  const int batch = context.shape[0], count = context.shape[1];
  const std::size_t block = static_cast<std::size_t>(context.shape[2]) * context.shape[3];  // (Sq, d_v)
  for (std::size_t i = 0; i < options.ablated_heads.size(); ++i) {
    const int h = options.ablated_heads[i];
    const int row = options.ablated_rows.empty() ? -1 : options.ablated_rows[i];
    for (int b = row < 0 ? 0 : row; b < (row < 0 ? batch : row + 1); ++b) {
      float* dst = context.ptr() + (static_cast<std::size_t>(b) * count + h) * block;
      if (options.head_means)
        std::copy_n(options.head_means->ptr() + static_cast<std::size_t>(h) * block, block, dst);
      else
        std::fill_n(dst, block, 0.0f);
    }
  }
}

Tensor view_as_heads(const Tensor& x, int heads) {
  return Tensor({x.axes[0], x.axes[1], "H", "d_k"}, {x.shape[0], x.shape[1], heads, x.shape[2] / heads}, x.data);
}

Tensor split_heads(const Tensor& x, int heads) {
  const int batch = x.shape[0], seq = x.shape[1], dk = x.shape[2] / heads;
  // One row a sequence (a decode step): (B, 1, H d_k) and (B, H, 1, d_k) are the same floats.
  if (seq == 1) return Tensor({"B", "H", x.axes[1], "d_k"}, {batch, heads, seq, dk}, x.data);
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
  if (seq == 1) return Tensor({"B", x.axes[2], "E"}, {batch, seq, heads * dk}, x.data);  // as in split_heads
  Tensor out({"B", x.axes[2], "E"}, {batch, seq, heads * dk});
  for (int b = 0; b < batch; ++b)
    for (int h = 0; h < heads; ++h)
      for (int s = 0; s < seq; ++s)
        std::copy_n(x.ptr() + ((static_cast<std::size_t>(b) * heads + h) * seq + s) * dk, dk,
                    out.ptr() + (static_cast<std::size_t>(b) * seq + s) * heads * dk + h * dk);
  return out;
}

HeadShape head_shape(const MultiHeadOptions& o, int embed_dim) {
  HeadShape hs;
  hs.heads = o.heads;
  hs.kv_heads = o.kv_heads > 0 ? o.kv_heads : o.heads;
  hs.head_dim = o.head_dim > 0 ? o.head_dim : embed_dim / o.heads;
  return hs;
}

Tensor repeat_kv(const Tensor& kv, int heads) {
  const int batch = kv.shape[0], kv_heads = kv.shape[1];
  if (kv_heads == heads) return kv;
  const int group = heads / kv_heads;
  const std::size_t block = static_cast<std::size_t>(kv.shape[2]) * kv.shape[3];  // (S, d)
  Tensor out({"B", "H", kv.axes[2], kv.axes[3]}, {batch, heads, kv.shape[2], kv.shape[3]});
  for (int b = 0; b < batch; ++b)
    for (int h = 0; h < heads; ++h)
      std::copy_n(kv.ptr() + (static_cast<std::size_t>(b) * kv_heads + h / group) * block, block,
                  out.ptr() + (static_cast<std::size_t>(b) * heads + h) * block);
  return out;
}

Tensor sum_groups(const Tensor& x, int kv_heads) {
  const int batch = x.shape[0], heads = x.shape[1];
  if (kv_heads == heads) return x;
  const int group = heads / kv_heads;
  const std::size_t block = static_cast<std::size_t>(x.shape[2]) * x.shape[3];
  Tensor out({"B", "H_kv", x.axes[2], x.axes[3]}, {batch, kv_heads, x.shape[2], x.shape[3]});
  for (int b = 0; b < batch; ++b)
    for (int h = 0; h < heads; ++h) {
      const float* from = x.ptr() + (static_cast<std::size_t>(b) * heads + h) * block;
      float* to = out.ptr() + (static_cast<std::size_t>(b) * kv_heads + h / group) * block;
      for (std::size_t i = 0; i < block; ++i) to[i] += from[i];
    }
  return out;
}

Result<StructuralMasks> structural_masks(int sq, int sk, bool causal, int window, const Tensor* user) {
  StructuralMasks m;
  if (causal) m.causal = causal_mask(sq, sk);
  if (window > 0) m.window = window_mask(sq, sk, window, causal);
  const Tensor* parts[] = {causal ? &m.causal : nullptr, window > 0 ? &m.window : nullptr, user};
  int count = 0;
  for (const Tensor* part : parts) {
    if (!part) continue;
    if (part->shape != std::vector<int>{sq, sk}) {  // a user mask of the wrong shape: combine_masks says so
      Result<Tensor> checked = combine_masks(1, sq, sk, nullptr, part);
      if (!checked) return checked.error_value();
    }
    m.joined = count == 0 ? *part : union_of(m.joined, *part);
    ++count;
  }
  m.user = user;
  m.any = count > 0;
  if (count == 1 && user && !causal && window == 0) m.joined = Tensor{};  // pass the user mask itself on
  return m;
}

Result<MultiHeadResult> multi_head_attention(const Tensor& query, const Tensor& key, const Tensor& value,
                                             const MultiHeadWeights& w, const MultiHeadOptions& options,
                                             const Recorder& recorder) {
  if (Status status = check_inputs(query, key, value, w, options); !status) return status.error_value();
  const int batch = query.shape[0], sq = query.shape[1], sk = key.shape[1], e = query.shape[2];
  const HeadShape hs = head_shape(options, e);
  const bool grouped = hs.kv_heads != hs.heads;

  // Masks: causal, window and user masks are (Sq, Sk); padding is (B, Sk); a float mask's
  // -inf entries block too; all meet in (B, Sq, Sk).
  Result<StructuralMasks> structural = structural_masks(sq, sk, options.causal, options.window, options.attn_mask);
  if (!structural) return structural.error_value();
  Result<Tensor> blocked = combine_masks(batch, sq, sk, options.key_padding_mask, structural.value().mask());
  if (!blocked) return blocked.error_value();
  if (options.attn_bias)
    for (int b = 0; b < batch; ++b)
      for (std::size_t i = 0; i < static_cast<std::size_t>(sq) * sk; ++i)
        if (options.attn_bias->data[i] == -INFINITY)
          blocked.value().data[b * static_cast<std::size_t>(sq) * sk + i] = 1.0f;
  const bool any_blocked = options.key_padding_mask || structural.value().mask() || options.attn_bias;

  Tensor q, k, v;  // q (B, Sq, H d_h), k and v (B, Sk, H_kv d_h)
  if (&query == &key && &key == &value && !w.separate_projections()) {
    Tensor* outs[] = {&q, &k, &v};
    project_fused(query, w, hs, 0, 3, options.backend, "Sk", outs);
  } else {
    q = project(query, w, hs, 0, "Sq", options.backend);
    if (&key == &value && !w.separate_projections()) {
      Tensor* outs[] = {&k, &v};
      project_fused(key, w, hs, 1, 2, options.backend, "Sk", outs);
    } else {
      k = project(key, w, hs, 1, "Sk", options.backend);
      v = project(value, w, hs, 2, "Sk", options.backend);
    }
  }
  if (!all_finite(q.ptr(), q.size()) || !all_finite(k.ptr(), k.size()) || !all_finite(v.ptr(), v.size()))
    return overflow_error("the Q, K, V projections");
  Tensor q_heads = split_heads(q, hs.heads);     // (B, H, Sq, d_h)
  Tensor k_heads = split_heads(k, hs.kv_heads);  // (B, H_kv, Sk, d_h)
  Tensor v_heads = split_heads(v, hs.kv_heads);
  if (grouped) k_heads.axes[1] = v_heads.axes[1] = "H_kv";

  // q and k as the scores see them: normalised per head (qkNorm), then rotated (RoPE).
  Tensor q_normed, k_normed, q_rotated, k_rotated;
  const Tensor* q_final = &q_heads;
  const Tensor* k_final = &k_heads;
  if (!w.q_norm.weight.empty()) {
    q_normed = layer_norm(q_heads, w.q_norm);
    k_normed = layer_norm(k_heads, w.k_norm);
    q_final = &q_normed;
    k_final = &k_normed;
  }
  if (options.rope) {
    q_rotated = *q_final;
    k_rotated = *k_final;
    apply_rope(q_rotated, *options.rope);
    apply_rope(k_rotated, *options.rope);
    q_final = &q_rotated;
    k_final = &k_rotated;
  }
  Tensor alibi;
  if (options.alibi) alibi = alibi_bias(hs.heads, sq, sk);
  // A float user mask and ALiBi's bias both add to the scores: one (H, Sq, Sk) sum.
  Tensor additive;
  const Tensor* additive_ptr = options.attn_bias;
  if (options.alibi) {
    additive = alibi;
    if (options.attn_bias)
      for (int h = 0; h < hs.heads; ++h)
        for (std::size_t i = 0; i < static_cast<std::size_t>(sq) * sk; ++i)
          additive.data[h * static_cast<std::size_t>(sq) * sk + i] += options.attn_bias->data[i];
    additive_ptr = &additive;
  }

  const bool keep_stages =
      recorder.wants(StageId::Scores) || recorder.wants(StageId::Scaled) || recorder.wants(StageId::Masked);
  // Grouped K/V repeated to the query heads (no copy without groups).
  const Tensor k_repeated = grouped ? repeat_kv(*k_final, hs.heads) : Tensor{};
  const Tensor v_repeated = grouped ? repeat_kv(v_heads, hs.heads) : Tensor{};
  AttentionStages st =
      scaled_dot_product_attention(*q_final, grouped ? k_repeated : *k_final, grouped ? v_repeated : v_heads,
                                   any_blocked ? &blocked.value() : nullptr, options.scale, options.backend,
                                   keep_stages, additive_ptr, options.score_scale);
  // +inf scores are fine (softmax takes the limit); NaN means +inf met -inf in a dot product.
  if (st.nan_scores) return overflow_error("the scores Q K^T");
  st.output.axes = {"B", "H", "Sq", "d_k"};
  ablate_heads(st.output, options);
  Tensor merged = merge_heads(st.output);  // (B, Sq, H d_h)
  Tensor output({"B", "Sq", "E"}, {batch, sq, e});
  linear_parameter_rows(merged.ptr(), batch * sq, hs.q_dim(), w.out_proj_weight, 0, bias_rows(w.out_proj_bias, 0), e,
                        output.ptr(), options.backend);

  if (recorder.active()) {  // in computation order; what is not returned is moved, not copied
    Tensor q_split = recorder.wants(StageId::QSplit) ? view_as_heads(q, hs.heads) : Tensor{};
    recorder.record(StageId::QProj, std::move(q));
    recorder.record(StageId::KProj, std::move(k));
    recorder.record(StageId::VProj, std::move(v));
    recorder.record(StageId::QSplit, std::move(q_split));
    recorder.record(StageId::QHeads, std::move(q_heads));
    recorder.record(StageId::KHeads, std::move(k_heads));
    recorder.record(StageId::VHeads, std::move(v_heads));
    if (grouped) {
      Tensor group({"H"}, {hs.heads});
      for (int h = 0; h < hs.heads; ++h) group.data[h] = static_cast<float>(h / hs.group());
      recorder.record(StageId::KvGroup, std::move(group));
    }
    if (!w.q_norm.weight.empty()) {
      recorder.record(StageId::QNormed, std::move(q_normed));
      recorder.record(StageId::KNormed, std::move(k_normed));
    }
    if (options.rope) {
      recorder.record(StageId::QRotated, std::move(q_rotated));
      recorder.record(StageId::KRotated, std::move(k_rotated));
    }
    if (options.key_padding_mask) recorder.record(StageId::MaskPadding, *options.key_padding_mask);
    if (options.causal) recorder.record(StageId::MaskCausal, std::move(structural.value().causal));
    if (options.window > 0) recorder.record(StageId::MaskWindow, std::move(structural.value().window));
    if (options.attn_mask) recorder.record(StageId::MaskUser, *options.attn_mask);
    if (options.attn_bias) recorder.record(StageId::MaskAdditive, *options.attn_bias);
    if (options.alibi) recorder.record(StageId::Alibi, std::move(alibi));
    recorder.record(StageId::Mask, std::move(blocked.value()));
    recorder.record(StageId::Scores, std::move(st.scores));
    recorder.record(StageId::Scaled, std::move(st.scaled));
    recorder.record(StageId::Masked, std::move(st.masked));
    recorder.record(StageId::Weights, st.weights);
    recorder.record(StageId::Context, std::move(st.output));
    recorder.record(StageId::Merged, std::move(merged));
    recorder.record(StageId::AttnOutput, output);
  }
  if (!all_finite(output.ptr(), output.size())) return overflow_error("the outputs");
  Tensor weights;
  if (options.need_weights) weights = options.average_weights ? average_heads(st.weights) : std::move(st.weights);
  return MultiHeadResult{std::move(output), std::move(weights)};
}

}  // namespace attention

namespace attention {

namespace {

// One new row of a sequence (a generation step) against its cache: q (H, Sn, d_h) with the row
// at index 0 of each head's Sn, and the row's own k and v (H_kv, 1, d_h), at `position`.
struct DecodeRow {
  const float* q;
  int q_stride_rows;  // Sn
  const float* k;
  const float* v;
  int position;
};

// The row's attention straight from the cache's slots (H_kv, capacity, d_h), without the
// general path's copies of K and V and its GEMM's packing of K: per query head, the scores
// against every slot up to the last in use and the row itself (kernels' dot_rows), the same
// rules as the general path (an empty slot, a key beyond the window: blocked; ALiBi's bias;
// the same softmax kernel), then the weights against V (weighted_sum_rows). Writes each head's
// context row (stride Sn rows) and its weights at their positions (stride P); false if a
// score is NaN. Tested against the general path (Backend::Reference) in test_generation.cpp.
// In a build with threads the heads are split across them (each head's numbers are its own,
// so any split gives the same bits: Parallel.DecodeAttentionIsBitForBitTheSameWithAnyThreadCount);
// the one-thread engine runs them in one loop.
bool decode_one_row(const DecodeRow& row, const SequenceKv& c, const HeadShape& hs, const MultiHeadOptions& options,
                    const std::vector<float>& slopes, float* context, int context_stride_rows, float* weights,
                    int weights_stride) {
  const int d = hs.head_dim, group = hs.heads / hs.kv_heads;
  const std::size_t dd = static_cast<std::size_t>(d);
  int used = 0;  // slots 0..used-1 hold every cached key (a ring may have none empty; a global layer's are 0..len-1)
  for (int slot = 0; slot < c.capacity; ++slot)
    if (c.positions[static_cast<std::size_t>(slot)] >= 0) used = slot + 1;
  const int sk = used + 1;  // + the row itself, last
  const float factor = attention_score_factor(options.scale, options.score_scale, d);
  const kernels::DotRowsFn dot = kernels::fastest_dot_rows().fn;
  const kernels::WeightedSumRowsFn weighted_sum = kernels::fastest_weighted_sum_rows().fn;
  // Query heads [h0, h1), with `scores` (Sk) of the caller's: one buffer per thread.
  const auto attend = [&](int h0, int h1, float* scores) {
    for (int h = h0; h < h1; ++h) {
      const std::size_t g = static_cast<std::size_t>(h / group);
      const float* q = row.q + static_cast<std::size_t>(h) * row.q_stride_rows * dd;
      const float* keys = c.k.data() + g * c.capacity * dd;
      const float* values = c.v.data() + g * c.capacity * dd;
      dot(q, keys, used, d, factor, scores);
      dot(q, row.k + g * dd, 1, d, factor, scores + used);
      for (int j = 0; j < used; ++j) {
        const int kp = c.positions[static_cast<std::size_t>(j)];
        if (kp < 0) {
          scores[j] = -std::numeric_limits<float>::infinity();  // an empty slot: no key
          continue;
        }
        if (std::isnan(scores[j])) return false;
        if (options.alibi) scores[j] += -slopes[h] * static_cast<float>(std::abs(row.position - kp));
        if (options.window > 0 && kp <= row.position - options.window)
          scores[j] = -std::numeric_limits<float>::infinity();
      }
      if (std::isnan(scores[used])) return false;
      kernels::fastest_softmax().fn(scores, 1, sk);
      float* out = context + static_cast<std::size_t>(h) * context_stride_rows * dd;
      weighted_sum(scores, values, used, d, out);
      weighted_sum(scores + used, row.v + g * dd, 1, d, out);
      float* w = weights + static_cast<std::size_t>(h) * weights_stride;
      for (int j = 0; j < used; ++j)
        if (c.positions[static_cast<std::size_t>(j)] >= 0) w[c.positions[static_cast<std::size_t>(j)]] = scores[j];
      w[row.position] = scores[used];
    }
    return true;
  };
#ifdef ATTENTION_THREADS
  // A head reads its group's K and V (2 Sk d_h floats; a group's heads each read them again):
  // split into parts of at least kMinParallelBytes, as the decode GEMV is. Query heads, not
  // K/V groups: SmolLM2-135M's 9 heads split 5 / 4 where its 3 groups would split 2 / 1.
  const double head_bytes = 2.0 * sizeof(float) * sk * d;
  const int min_heads = std::max(1, static_cast<int>(std::ceil(kMinParallelBytes / head_bytes)));
  std::atomic<bool> finite{true};
  // One scores buffer of H rows of Sk, allocated here for every part: a part scores each of its
  // heads in turn in the row of its first head (parts start at different heads: no row is
  // shared). A part allocating its own on a worker took the allocator's lock against the others.
  std::vector<float> scores(static_cast<std::size_t>(hs.heads) * sk);
  parallel_for(hs.heads, min_heads, [&](int h0, int h1) {
    if (!attend(h0, h1, scores.data() + static_cast<std::size_t>(h0) * sk))
      finite.store(false, std::memory_order_relaxed);
  });
  return finite.load(std::memory_order_relaxed);
#else
  std::vector<float> scores(static_cast<std::size_t>(sk));
  return attend(0, hs.heads, scores.data());
#endif
}

}  // namespace

Result<Tensor> cached_self_attention(const Tensor& x, const MultiHeadWeights& w, const MultiHeadOptions& options,
                                     const LayerKvCache& cache, const std::vector<int>& first,
                                     const std::vector<int>& rows, CachedBlock& block) {
  if (Status status = check_inputs(x, x, x, w, options); !status) return status.error_value();
  const int batch = x.shape[0], sn = x.shape[1], e = x.shape[2];
  const HeadShape hs = head_shape(options, e);
  const int d = hs.head_dim;
  Tensor q, k, v;  // q (B, Sn, H d_h), k and v (B, Sn, H_kv d_h)
  if (!w.separate_projections()) {
    Tensor* outs[] = {&q, &k, &v};
    project_fused(x, w, hs, 0, 3, options.backend, "Sk", outs);
  } else {
    q = project(x, w, hs, 0, "Sq", options.backend);
    k = project(x, w, hs, 1, "Sk", options.backend);
    v = project(x, w, hs, 2, "Sk", options.backend);
  }
  if (!all_finite(q.ptr(), q.size()) || !all_finite(k.ptr(), k.size()) || !all_finite(v.ptr(), v.size()))
    return overflow_error("the Q, K, V projections");
  Tensor q_heads = split_heads(q, hs.heads);     // (B, H, Sn, d_h)
  Tensor k_heads = split_heads(k, hs.kv_heads);  // (B, H_kv, Sn, d_h)
  Tensor v_heads = split_heads(v, hs.kv_heads);
  if (!w.q_norm.weight.empty()) {
    q_heads = layer_norm(q_heads, w.q_norm);
    k_heads = layer_norm(k_heads, w.k_norm);
  }
  const std::vector<float> slopes = options.alibi ? alibi_slopes(hs.heads) : std::vector<float>{};
  int span = 0;  // P
  for (int b = 0; b < batch; ++b) span = std::max(span, first[b] + rows[b]);
  block.k.assign(static_cast<std::size_t>(batch), {});
  block.v.assign(static_cast<std::size_t>(batch), {});
  block.last_weights = Tensor({"B", "H", "P"}, {batch, hs.heads, span});
  Tensor context({"B", "H", "Sq", "d_k"}, {batch, hs.heads, sn, d});
  const std::size_t dd = static_cast<std::size_t>(d);
  for (int b = 0; b < batch; ++b) {
    const int n = rows[b], p0 = first[b];
    float* qb_all = q_heads.ptr() + static_cast<std::size_t>(b) * hs.heads * sn * dd;
    float* kb_all = k_heads.ptr() + static_cast<std::size_t>(b) * hs.kv_heads * sn * dd;
    const float* vb_all = v_heads.ptr() + static_cast<std::size_t>(b) * hs.kv_heads * sn * dd;
    if (options.rope) {  // rows at positions p0..p0+n-1 (the padding rows are never read)
      apply_rope(qb_all, hs.heads, sn, d, *options.rope, false, p0);
      apply_rope(kb_all, hs.kv_heads, sn, d, *options.rope, false, p0);
    }
    const SequenceKv& c = cache.sequences[static_cast<std::size_t>(b)];
    const std::size_t kept = static_cast<std::size_t>(hs.kv_heads) * n * dd;
    if (n == sn) {  // no padding rows (a generation's steps): (H_kv, n, d_h) as they are
      block.k[b].assign(kb_all, kb_all + kept);
      block.v[b].assign(vb_all, vb_all + kept);
    } else {
      block.k[b].resize(kept);
      block.v[b].resize(kept);
      for (int h = 0; h < hs.kv_heads; ++h) {
        const std::size_t from = static_cast<std::size_t>(h) * sn * dd, count = static_cast<std::size_t>(n) * dd;
        std::copy_n(kb_all + from, count, block.k[b].data() + h * count);
        std::copy_n(vb_all + from, count, block.v[b].data() + h * count);
      }
    }
    if (n == 1 && options.backend != Backend::Reference) {
      // A generation step: its one row attends to the cache in place (decode_one_row).
      const DecodeRow row{qb_all, sn, block.k[b].data(), block.v[b].data(), p0};
      float* context_rows = context.ptr() + static_cast<std::size_t>(b) * hs.heads * sn * dd;
      float* weights_rows = block.last_weights.ptr() + static_cast<std::size_t>(b) * hs.heads * span;
      if (!decode_one_row(row, c, hs, options, slopes, context_rows, sn, weights_rows, span))
        return overflow_error("the scores Q K^T");
      continue;
    }
    // Keys: the cached slots in use, then the block's own real rows. (B=1, H_kv, Sk, d_h)
    std::vector<int> slots, key_positions;
    for (int slot = 0; slot < c.capacity; ++slot)
      if (c.positions[static_cast<std::size_t>(slot)] >= 0) {
        slots.push_back(slot);
        key_positions.push_back(c.positions[static_cast<std::size_t>(slot)]);
      }
    const int cached = static_cast<int>(slots.size()), sk = cached + n;
    for (int r = 0; r < n; ++r) key_positions.push_back(p0 + r);
    Tensor kb({"B", "H_kv", "Sk", "d_h"}, {1, hs.kv_heads, sk, d}), vb = kb;
    for (int h = 0; h < hs.kv_heads; ++h) {
      for (int i = 0; i < cached; ++i) {
        std::copy_n(c.k.data() + (static_cast<std::size_t>(h) * c.capacity + slots[i]) * dd, dd,
                    kb.ptr() + (static_cast<std::size_t>(h) * sk + i) * dd);
        std::copy_n(c.v.data() + (static_cast<std::size_t>(h) * c.capacity + slots[i]) * dd, dd,
                    vb.ptr() + (static_cast<std::size_t>(h) * sk + i) * dd);
      }
      const std::size_t from = static_cast<std::size_t>(h) * sn * dd, count = static_cast<std::size_t>(n) * dd;
      std::copy_n(kb_all + from, count, kb.ptr() + (static_cast<std::size_t>(h) * sk + cached) * dd);
      std::copy_n(vb_all + from, count, vb.ptr() + (static_cast<std::size_t>(h) * sk + cached) * dd);
    }
    Tensor qb({"B", "H", "Sq", "d_h"}, {1, hs.heads, n, d});
    for (int h = 0; h < hs.heads; ++h)
      std::copy_n(qb_all + static_cast<std::size_t>(h) * sn * dd, static_cast<std::size_t>(n) * dd,
                  qb.ptr() + static_cast<std::size_t>(h) * n * dd);
    // Blocked (1, n, Sk): the future, and what fell out of the window (as causal_mask and window_mask).
    Tensor blocked({"B", "Sq", "Sk"}, {1, n, sk});
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < sk; ++j) {
        const int qp = p0 + i, kp = key_positions[static_cast<std::size_t>(j)];
        if (kp > qp || (options.window > 0 && kp <= qp - options.window))
          blocked.data[static_cast<std::size_t>(i) * sk + j] = 1.0f;
      }
    Tensor alibi;  // (H, n, Sk): -slope_h |i - j| at the absolute positions, as alibi_bias
    if (options.alibi) {
      alibi = Tensor({"H", "Sq", "Sk"}, {hs.heads, n, sk});
      for (int h = 0; h < hs.heads; ++h)
        for (int i = 0; i < n; ++i)
          for (int j = 0; j < sk; ++j)
            alibi.data[(static_cast<std::size_t>(h) * n + i) * sk + j] =
                -slopes[h] * static_cast<float>(std::abs(p0 + i - key_positions[static_cast<std::size_t>(j)]));
    }
    // GQA without repeat_kv's copies: the G = H / H_kv query heads of a K/V head attend to it
    // as G n query rows, (1, H, n, d_h) read as (1, H_kv, G n, d_h) (the same memory, as are
    // ALiBi's (H, n, Sk) as (H_kv, G n, Sk) and the results' (1, H_kv, G n, .) as (1, H, n, .)),
    // with the blocked rows repeated G times. Each row's numbers are those of the repeated form.
    const int group = hs.heads / hs.kv_heads;
    if (group > 1) {
      qb = Tensor({"B", "H_kv", "Sq", "d_h"}, {1, hs.kv_heads, group * n, d}, std::move(qb.data));
      Tensor repeated({"B", "Sq", "Sk"}, {1, group * n, sk});
      for (int g = 0; g < group; ++g)
        std::copy(blocked.data.begin(), blocked.data.end(),
                  repeated.data.begin() + static_cast<std::ptrdiff_t>(g) * n * sk);
      blocked = std::move(repeated);
      if (options.alibi) alibi = Tensor({"H_kv", "Sq", "Sk"}, {hs.kv_heads, group * n, sk}, std::move(alibi.data));
    }
    AttentionStages st = scaled_dot_product_attention(qb, kb, vb, &blocked, options.scale, options.backend, false,
                                                      options.alibi ? &alibi : nullptr, options.score_scale);
    if (st.nan_scores) return overflow_error("the scores Q K^T");
    for (int h = 0; h < hs.heads; ++h) {
      std::copy_n(st.output.ptr() + static_cast<std::size_t>(h) * n * dd, static_cast<std::size_t>(n) * dd,
                  context.ptr() + (static_cast<std::size_t>(b) * hs.heads + h) * sn * dd);
      const float* last = st.weights.ptr() + (static_cast<std::size_t>(h) * n + (n - 1)) * sk;
      float* row = block.last_weights.ptr() + (static_cast<std::size_t>(b) * hs.heads + h) * span;
      for (int j = 0; j < sk; ++j) row[key_positions[static_cast<std::size_t>(j)]] = last[j];
    }
  }
  zero_heads(context, options.ablated_heads);
  Tensor merged = merge_heads(context);  // (B, Sn, H d_h)
  Tensor output({"B", "Sq", "E"}, {batch, sn, e});
  linear_parameter_rows(merged.ptr(), batch * sn, hs.q_dim(), w.out_proj_weight, 0, bias_rows(w.out_proj_bias, 0), e,
                        output.ptr(), options.backend);
  if (!all_finite(output.ptr(), output.size())) return overflow_error("the outputs");
  return output;
}

}  // namespace attention
