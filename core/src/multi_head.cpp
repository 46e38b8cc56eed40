#include "attention/multi_head.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>

#include "attention/attention.hpp"
#include "attention/linear.hpp"
#include "attention/masks.hpp"
#include "attention/numeric.hpp"

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

Status check_weights(const MultiHeadWeights& w, int e) {
  const std::size_t ue = static_cast<std::size_t>(e);
  const std::size_t kd = static_cast<std::size_t>(w.key_dim()), vd = static_cast<std::size_t>(w.value_dim());
  if (w.separate_projections()) {
    for (Status s : {check_size("q_proj_weight", w.q_proj_weight, ue * ue, "(E, E)"),
                     check_size("k_proj_weight", w.k_proj_weight, ue * kd, "(E, kdim)"),
                     check_size("v_proj_weight", w.v_proj_weight, ue * vd, "(E, vdim)")})
      if (!s) return s;
  } else if (Status s = check_size("in_proj_weight", w.in_proj_weight, 3 * ue * ue, "(3E, E)"); !s) {
    return s;
  }
  for (Status s : {check_bias("in_proj_bias", w.in_proj_bias, 3 * ue, "3E"),
                   check_size("out_proj_weight", w.out_proj_weight, ue * ue, "(E, E)"),
                   check_bias("out_proj_bias", w.out_proj_bias, ue, "E")})
    if (!s) return s;
  for (const auto& [name, p] : {std::pair{"in_proj_weight", &w.in_proj_weight},
                                {"q_proj_weight", &w.q_proj_weight},
                                {"k_proj_weight", &w.k_proj_weight},
                                {"v_proj_weight", &w.v_proj_weight},
                                {"in_proj_bias", &w.in_proj_bias},
                                {"out_proj_weight", &w.out_proj_weight},
                                {"out_proj_bias", &w.out_proj_bias}})
    if (!p->all_finite()) return check_finite(name, p->data(), p->size());  // names the element
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
  if (e % options.heads != 0)
    return Error{"embed_dim " + std::to_string(e) + " is not divisible by heads " + std::to_string(options.heads),
                 error_code::kNotDivisible, "heads"};
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
  if (Status s = check_weights(w, e); !s) return s;
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

const float* bias_part(const Parameter& bias, int part, int e) {
  return bias.empty() ? nullptr : bias.data() + static_cast<std::size_t>(part) * e;
}

// The projection of one input: part 0 = Q, 1 = K, 2 = V. x: (B, S, in) -> (B, S, E)
Tensor project(const Tensor& x, const MultiHeadWeights& w, int part, const std::string& seq_axis, Backend backend) {
  const int e = w.embed_dim, in = x.shape[2];
  const Parameter* weight = &w.in_proj_weight;
  int row_begin = part * e;
  if (w.separate_projections()) {
    weight = part == 0 ? &w.q_proj_weight : part == 1 ? &w.k_proj_weight : &w.v_proj_weight;
    row_begin = 0;
  }
  Tensor y({"B", seq_axis, "E"}, {x.shape[0], x.shape[1], e});
  const kernels::PackedWeight* packed = backend == Backend::Fast ? weight->packed_rows(row_begin, e, in) : nullptr;
  linear_rows(x.ptr(), x.shape[0] * x.shape[1], in, weight->data() + static_cast<std::size_t>(row_begin) * in,
              bias_part(w.in_proj_bias, part, e), e, y.ptr(), backend, packed);
  return y;
}

// Parts [first, first + count) of in_proj in one (rows, E) x (E, count E) product, then
// split: self-attention fuses Q, K and V (count 3), cross-attention K and V (count 2).
// x: (B, S, E) -> outs[i]: (B, S, E)
void project_fused(const Tensor& x, const MultiHeadWeights& w, int first, int count, Backend backend,
                   const char* seq_axis, Tensor* outs[]) {
  const int e = w.embed_dim, rows = x.shape[0] * x.shape[1], width = count * e;
  std::vector<float> fused(static_cast<std::size_t>(rows) * width);
  const kernels::PackedWeight* packed =
      backend == Backend::Fast ? w.in_proj_weight.packed_rows(first * e, width, e) : nullptr;
  linear_rows(x.ptr(), rows, e, w.in_proj_weight.data() + static_cast<std::size_t>(first) * e * e,
              bias_part(w.in_proj_bias, first, e), width, fused.data(), backend, packed);
  for (int part = 0; part < count; ++part) {
    *outs[part] = Tensor({"B", first + part == 0 ? "Sq" : seq_axis, "E"}, {x.shape[0], x.shape[1], e});
    float* out = outs[part]->ptr();
    for (int r = 0; r < rows; ++r)
      std::copy_n(fused.data() + static_cast<std::size_t>(r) * width + part * e, e,
                  out + static_cast<std::size_t>(r) * e);
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
  if (Status status = check_inputs(query, key, value, w, options); !status) return status.error_value();
  const int batch = query.shape[0], sq = query.shape[1], sk = key.shape[1], e = query.shape[2];
  const int heads = options.heads;

  // Masks: causal and user masks are (Sq, Sk); padding is (B, Sk); a float mask's -inf
  // entries block too; all meet in (B, Sq, Sk).
  Tensor causal, user_and_causal;
  const Tensor* attn_mask_ptr = options.attn_mask;
  if (options.causal) {
    causal = causal_mask(sq, sk);
    if (!options.attn_mask) {
      attn_mask_ptr = &causal;
    } else if (options.attn_mask->shape == causal.shape) {
      user_and_causal = union_of(causal, *options.attn_mask);
      attn_mask_ptr = &user_and_causal;
    }  // else: a user mask of the wrong shape, which combine_masks reports
  }
  Result<Tensor> blocked = combine_masks(batch, sq, sk, options.key_padding_mask, attn_mask_ptr);
  if (!blocked) return blocked.error_value();
  if (options.attn_bias)
    for (int b = 0; b < batch; ++b)
      for (std::size_t i = 0; i < static_cast<std::size_t>(sq) * sk; ++i)
        if (options.attn_bias->data[i] == -INFINITY)
          blocked.value().data[b * static_cast<std::size_t>(sq) * sk + i] = 1.0f;
  const bool any_blocked = options.key_padding_mask || attn_mask_ptr || options.attn_bias;

  Tensor q, k, v;
  if (&query == &key && &key == &value && !w.separate_projections()) {
    Tensor* outs[] = {&q, &k, &v};
    project_fused(query, w, 0, 3, options.backend, "Sk", outs);
  } else {
    q = project(query, w, 0, "Sq", options.backend);
    if (&key == &value && !w.separate_projections()) {
      Tensor* outs[] = {&k, &v};
      project_fused(key, w, 1, 2, options.backend, "Sk", outs);
    } else {
      k = project(key, w, 1, "Sk", options.backend);
      v = project(value, w, 2, "Sk", options.backend);
    }
  }
  if (!all_finite(q.ptr(), q.size()) || !all_finite(k.ptr(), k.size()) || !all_finite(v.ptr(), v.size()))
    return overflow_error("the Q, K, V projections");
  Tensor q_heads = split_heads(q, heads);
  Tensor k_heads = split_heads(k, heads);
  Tensor v_heads = split_heads(v, heads);

  const bool keep_stages =
      recorder.wants(StageId::Scores) || recorder.wants(StageId::Scaled) || recorder.wants(StageId::Masked);
  AttentionStages st = scaled_dot_product_attention(q_heads, k_heads, v_heads, any_blocked ? &blocked.value() : nullptr,
                                                    options.scale, options.backend, keep_stages, options.attn_bias);
  // +inf scores are fine (softmax takes the limit); NaN means +inf met -inf in a dot product.
  if (st.nan_scores) return overflow_error("the scores Q K^T");
  st.output.axes = {"B", "H", "Sq", "d_k"};
  zero_heads(st.output, options.ablated_heads);
  Tensor merged = merge_heads(st.output);
  Tensor output({"B", "Sq", "E"}, {batch, sq, e});
  const kernels::PackedWeight* packed_out =
      options.backend == Backend::Fast ? w.out_proj_weight.packed_rows(0, e, e) : nullptr;
  linear_rows(merged.ptr(), batch * sq, e, w.out_proj_weight.data(), bias_part(w.out_proj_bias, 0, e), e, output.ptr(),
              options.backend, packed_out);

  if (recorder.active()) {  // in computation order; what is not returned is moved, not copied
    Tensor q_split = recorder.wants(StageId::QSplit) ? view_as_heads(q, heads) : Tensor{};
    recorder.record(StageId::QProj, std::move(q));
    recorder.record(StageId::KProj, std::move(k));
    recorder.record(StageId::VProj, std::move(v));
    recorder.record(StageId::QSplit, std::move(q_split));
    recorder.record(StageId::QHeads, std::move(q_heads));
    recorder.record(StageId::KHeads, std::move(k_heads));
    recorder.record(StageId::VHeads, std::move(v_heads));
    if (options.key_padding_mask) recorder.record(StageId::MaskPadding, *options.key_padding_mask);
    if (options.causal) recorder.record(StageId::MaskCausal, std::move(causal));
    if (options.attn_mask) recorder.record(StageId::MaskUser, *options.attn_mask);
    if (options.attn_bias) recorder.record(StageId::MaskAdditive, *options.attn_bias);
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
