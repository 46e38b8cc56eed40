// See attention/analysis/logit_attribution.hpp.
#include "attention/analysis/logit_attribution.hpp"

#include <cmath>
#include <string>

#include "attention/analysis/unembed.hpp"
#include "attention/linear.hpp"

namespace attention {

namespace {

Status check_decomposable(const ModelSpec& s) {
  if (Status ok = check_unembeddable(s); !ok) return ok;
  if (s.mlm_head())
    return Error(
        "direct logit attribution needs a linear path to the logits; an MLM head (BERT) transforms the "
        "hidden states first (dense, activation, norm)",
        error_code::kInvalidArgument, "model");
  if (s.layer_norm && s.norm == NormPlacement::Post)
    return Error(
        "direct logit attribution needs a pre-LN model: in a post-LN model every layer renormalises the "
        "residual sum, so heads' outputs do not add up to the final stream",
        error_code::kInvalidArgument, "model");
  if (s.layer_norm && s.norm == NormPlacement::Sandwich)
    return Error(
        "direct logit attribution needs a pre-LN model: sandwich norms rescale each sub-layer's output "
        "before it joins the residual stream",
        error_code::kInvalidArgument, "model");
  if (!s.residual || s.attn_activation != Activation::None)
    return Error("direct logit attribution needs the residual stream and no activation after attention",
                 error_code::kInvalidArgument, "model");
  return Ok{};
}

Error out_of_range(const char* field, int value, int size) {
  return Error(std::string(field) + " must be 0.." + std::to_string(size - 1) + ", got " + std::to_string(value),
               error_code::kOutOfRange, field);
}

}  // namespace

Result<LogitAttribution> logit_attribution(const Transformer& model, const LogitAttributionOptions& o) {
  const ModelSpec& s = model.spec();
  if (Status ok = check_decomposable(s); !ok) return ok.error_value();
  const int seq = static_cast<int>(o.ids.size()), e = s.d_model, h_count = s.heads, d_h = s.head_dim();
  if (o.position < 0 || o.position >= seq) return out_of_range("position", o.position, seq);
  if (o.token < 0 || o.token >= s.vocab_size) return out_of_range("token", o.token, s.vocab_size);
  if (o.against < -1 || o.against >= s.vocab_size) return out_of_range("against", o.against, s.vocab_size);

  ForwardInput input;
  input.batch = 1;
  input.seq = seq;
  input.ids = o.ids;
  RecordFilter filter;
  filter.patterns = {"*.input", "*.self_attn.merged", "*.ffn.output", "*.output"};
  ForwardOptions options;
  options.record = &filter;
  Result<ForwardOutput> out = model.forward(input, options);
  if (!out) return out.error_value();

  // The parts at the position, each (E): rows [embed, heads (L x H), mlps (L), biases].
  const std::size_t at = static_cast<std::size_t>(o.position);
  const int rows = 1 + s.layers * h_count + s.layers + 1;
  std::vector<float> parts(static_cast<std::size_t>(rows) * e, 0.0f), resid(static_cast<std::size_t>(e), 0.0f);
  const auto row = [&](int r) { return parts.data() + static_cast<std::size_t>(r) * e; };
  float* biases = row(rows - 1);
  for (const Stage& stage : out.value().trace.stages) {
    const float* x = stage.tensor.ptr();
    if (stage.id == StageId::Input) {
      std::copy_n(x + at * e, e, row(0));
    } else if (stage.id == StageId::Merged) {
      // merged (1, S, H d_h); each head's slice alone through out_proj without its bias.
      const MultiHeadWeights& w = model.encoder_layers()[static_cast<std::size_t>(stage.layer)].self_attn;
      const int width = h_count * d_h;
      std::vector<float> one(static_cast<std::size_t>(h_count) * width, 0.0f);  // (H, H d_h), block diagonal
      for (int h = 0; h < h_count; ++h)
        std::copy_n(x + at * width + static_cast<std::size_t>(h) * d_h, d_h,
                    one.data() + static_cast<std::size_t>(h) * width + static_cast<std::size_t>(h) * d_h);
      linear_parameter_rows(one.data(), h_count, width, w.out_proj_weight, 0, nullptr, e,
                            row(1 + stage.layer * h_count), Backend::Reference);
      if (!w.out_proj_bias.empty())
        for (int i = 0; i < e; ++i) biases[i] += w.out_proj_bias.data()[i];
    } else if (stage.id == StageId::FfnOutput) {
      std::copy_n(x + at * e, e, row(1 + s.layers * h_count + stage.layer));
    } else if (stage.id == StageId::LayerOutput && stage.layer == s.layers - 1) {
      std::copy_n(x + at * e, e, resid.data());
    }
  }

  // The final norm's frozen scale and weight, folded into the direction read: (E).
  std::vector<float> scaled(parts);
  std::vector<float> gain(static_cast<std::size_t>(e), 1.0f), shift(static_cast<std::size_t>(e), 0.0f);
  if (s.has_final_norm()) {
    const LayerNormWeights& n = model.final_norm();
    const bool centred = n.type == NormType::LayerNorm;
    double mean = 0, square = 0;
    for (float v : resid) mean += v;
    mean /= e;
    for (float v : resid) square += centred ? (v - mean) * (v - mean) : double(v) * v;
    const double scale = std::sqrt(square / e + n.eps);
    const float offset = norm_weight_offset(n.type);
    for (int i = 0; i < e; ++i) {
      gain[static_cast<std::size_t>(i)] = static_cast<float>((n.weight.data()[i] + offset) / scale);
      if (!n.bias.empty()) shift[static_cast<std::size_t>(i)] = n.bias.data()[i];
    }
    for (int r = 0; r < rows; ++r) {
      float* c = scaled.data() + static_cast<std::size_t>(r) * e;
      double m = 0;
      if (centred) {
        for (int i = 0; i < e; ++i) m += c[i];
        m /= e;
      }
      for (int i = 0; i < e; ++i) c[i] = static_cast<float>((c[i] - m) * gain[static_cast<std::size_t>(i)]);
    }
  }
  // The bias row also carries the norm's beta (it is added after scaling, so not centred or scaled).
  float* bias_row = scaled.data() + static_cast<std::size_t>(rows - 1) * e;
  for (int i = 0; i < e; ++i) bias_row[i] += shift[static_cast<std::size_t>(i)];

  // Each part read by the unembedding row(s): (rows) logits of token (and against).
  const Parameter& unembed = s.tied_head() ? model.embed() : model.head().weight;
  const float* head_bias = model.head().bias.empty() ? nullptr : model.head().bias.data();
  const auto read = [&](int token) {
    std::vector<float> v(static_cast<std::size_t>(rows));
    linear_parameter_rows(scaled.data(), rows, e, unembed, token, nullptr, 1, v.data(), Backend::Reference);
    v[static_cast<std::size_t>(rows) - 1] += head_bias ? head_bias[token] : 0.0f;
    return v;
  };
  std::vector<float> v = read(o.token);
  if (o.against >= 0) {
    const std::vector<float> w = read(o.against);
    for (std::size_t r = 0; r < v.size(); ++r) v[r] -= w[r];
  }
  LogitAttribution a;
  a.layers = s.layers;
  a.heads = h_count;
  a.embed = v[0];
  a.heads_part.assign(v.begin() + 1, v.begin() + 1 + s.layers * h_count);
  a.mlps.assign(v.begin() + 1 + s.layers * h_count, v.begin() + 1 + s.layers * h_count + s.layers);
  a.biases = v[static_cast<std::size_t>(rows) - 1];
  const float* logits = out.value().logits.ptr() + at * s.vocab_size;
  a.logit = logits[o.token] - (o.against >= 0 ? logits[o.against] : 0.0f);
  return a;
}

}  // namespace attention
