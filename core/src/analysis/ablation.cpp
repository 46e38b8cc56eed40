// See attention/analysis/ablation.hpp.
#include "attention/analysis/ablation.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>

#include "attention/analysis/unembed.hpp"

namespace attention {

namespace {

// Forward passes of the means read this many reference sequences at a time.
constexpr int kMeanChunk = 8;
// Rows (one ablation each) of one batched ranking pass, at most.
constexpr int kRankingChunk = 32;

Error out_of_range(const char* field, int value, int size) {
  return Error(std::string(field) + " must be 0.." + std::to_string(size - 1) + ", got " + std::to_string(value),
               error_code::kOutOfRange, field);
}

Status check_single_stack(const ModelSpec& s, const char* tool) {
  if (s.encoder_decoder())
    return Error(std::string(tool) + " needs a single stack; this model is an encoder–decoder (encoderLayers > 0)",
                 error_code::kInvalidArgument, "model");
  return Ok{};
}

}  // namespace

Result<AblationMeans> ablation_means(const Transformer& model, const std::vector<int>& ids, int count, int seq) {
  const ModelSpec& s = model.spec();
  if (Status ok = check_single_stack(s, "mean ablation"); !ok) return ok.error_value();
  if (count < 1 || count > kMaxMeanOver)
    return Error(
        "meanOver must hold 1.." + std::to_string(kMaxMeanOver) + " reference sequences, got " + std::to_string(count),
        error_code::kOutOfRange, "meanOver");
  if (seq < 1 || ids.size() != static_cast<std::size_t>(count) * seq)
    return Error("meanOver holds " + std::to_string(ids.size()) + " ids; " + std::to_string(count) + " sequences of " +
                     std::to_string(seq) + " need " + std::to_string(count * seq),
                 error_code::kShapeMismatch, "meanOver");
  const int layers = s.layers, heads = s.heads, d_h = s.head_dim(), e = s.d_model;
  const std::size_t head_block = static_cast<std::size_t>(heads) * seq * d_h;  // (H, S, d_h)
  const std::size_t mlp_block = static_cast<std::size_t>(seq) * e;             // (S, E)
  std::vector<std::vector<double>> head_sums(layers, std::vector<double>(head_block));
  std::vector<std::vector<double>> mlp_sums(layers, std::vector<double>(mlp_block));

  RecordFilter filter;
  filter.patterns = {"*.self_attn.context", "*.ffn.output"};
  ForwardOptions options;
  options.record = &filter;
  options.logits = LogitRows::None;
  for (int first = 0; first < count; first += kMeanChunk) {
    ForwardInput input;
    input.batch = std::min(kMeanChunk, count - first);
    input.seq = seq;
    input.ids.assign(ids.begin() + static_cast<std::ptrdiff_t>(first) * seq,
                     ids.begin() + static_cast<std::ptrdiff_t>(first + input.batch) * seq);
    Result<ForwardOutput> out = model.forward(input, options);
    if (!out) {
      Error error = out.error_value();
      if (error.field == "ids") error = Error("meanOver: " + error.message, error.code, "meanOver");
      return error;
    }
    for (const Stage& stage : out.value().trace.stages) {
      if (stage.layer < 0) continue;
      const bool head = stage.id == StageId::Context;  // (B, H, S, d_h)
      std::vector<double>& sums = head ? head_sums[stage.layer] : mlp_sums[stage.layer];
      const std::size_t block = head ? head_block : mlp_block;
      for (int b = 0; b < input.batch; ++b) {
        const float* row = stage.tensor.ptr() + static_cast<std::size_t>(b) * block;
        for (std::size_t i = 0; i < block; ++i) sums[i] += row[i];
      }
    }
  }
  AblationMeans means;
  means.seq = seq;
  for (int l = 0; l < layers; ++l) {
    Tensor h({"H", "S", "d_k"}, {heads, seq, d_h}), m({"S", "E"}, {seq, e});
    for (std::size_t i = 0; i < head_block; ++i) h.data[i] = static_cast<float>(head_sums[l][i] / count);
    for (std::size_t i = 0; i < mlp_block; ++i) m.data[i] = static_cast<float>(mlp_sums[l][i] / count);
    means.heads.push_back(std::move(h));
    means.mlps.push_back(std::move(m));
  }
  return means;
}

Result<AblationRanking> ablation_ranking(const Transformer& model, const AblationRankingOptions& o) {
  const ModelSpec& s = model.spec();
  if (Status ok = check_single_stack(s, "the ablation ranking"); !ok) return ok.error_value();
  if (s.head == OutputHead::None)
    return Error("the ablation ranking reads a prediction: this model has no output head", error_code::kInvalidArgument,
                 "model");
  const int full_seq = static_cast<int>(o.ids.size());
  if (full_seq < 1) return Error("ids must hold at least one token", error_code::kOutOfRange, "ids");
  if (o.position < 0 || o.position >= full_seq) return out_of_range("position", o.position, full_seq);
  if (o.token < 0 || o.token >= s.vocab_size) return out_of_range("token", o.token, s.vocab_size);
  if (o.against < -1 || o.against >= s.vocab_size) return out_of_range("against", o.against, s.vocab_size);
  if (!o.mean && (o.mean_count != 0 || !o.mean_over.empty()))
    return Error("meanOver is only for mean ablation", error_code::kInvalidArgument, "meanOver");
  if (o.mean && o.mean_count < 1)
    return Error("mean ablation needs meanOver: one or more reference sequences", error_code::kInvalidArgument,
                 "meanOver");
  if (o.mean && o.mean_over.size() != static_cast<std::size_t>(o.mean_count) * full_seq)
    return Error("every meanOver sequence must have the " + std::to_string(full_seq) + " tokens of ids",
                 error_code::kShapeMismatch, "meanOver");

  // A causal model's prediction at `position` sees ids[0..position] only: cut the rest (of the
  // reference sequences too) and compute only that row's logits.
  const bool cut = s.causal;
  const int seq = cut ? o.position + 1 : full_seq;
  const int row_at = cut ? 0 : o.position;  // the logits row read
  AblationMeans means;
  if (o.mean) {
    std::vector<int> reference;
    for (int n = 0; n < o.mean_count; ++n)
      reference.insert(reference.end(), o.mean_over.begin() + static_cast<std::ptrdiff_t>(n) * full_seq,
                       o.mean_over.begin() + static_cast<std::ptrdiff_t>(n) * full_seq + seq);
    Result<AblationMeans> made = ablation_means(model, reference, o.mean_count, seq);
    if (!made) return made.error_value();
    means = std::move(made.value());
  }

  const int layers = s.layers, heads = s.heads, parts = layers * heads + layers;
  const std::vector<int> ids(o.ids.begin(), o.ids.begin() + seq);
  const double per_row = estimate_forward_floats(s, 1, seq, 0, false);
  const int chunk = static_cast<int>(
      std::clamp(static_cast<double>(kMaxTraceFloats) / 2 / std::max(per_row, 1.0), 1.0, double{kRankingChunk}));
  // Item 0 is the clean run; item 1 + i ablates part i.
  std::vector<float> probability(parts + 1), logit_diff(parts + 1);
  for (int first = 0; first <= parts; first += chunk) {
    const int rows = std::min(chunk, parts + 1 - first);
    ForwardInput input;
    input.batch = rows;
    input.seq = seq;
    for (int r = 0; r < rows; ++r) input.ids.insert(input.ids.end(), ids.begin(), ids.end());
    ForwardOptions options;
    options.logits = cut ? LogitRows::Last : LogitRows::All;
    options.means = o.mean ? &means : nullptr;
    for (int r = 0; r < rows; ++r) {
      const int part = first + r - 1;
      if (part < 0) continue;
      if (part < layers * heads)
        options.ablated_heads.push_back(HeadRef{part / heads, part % heads, r});
      else
        options.ablated_mlps.push_back(MlpRef{part - layers * heads, r});
    }
    Result<ForwardOutput> out = model.forward(input, options);
    if (!out) return out.error_value();
    const int logit_rows = cut ? 1 : seq;
    for (int r = 0; r < rows; ++r) {
      const float* logits =
          out.value().logits.ptr() + (static_cast<std::size_t>(r) * logit_rows + row_at) * s.vocab_size;
      const std::vector<double> p = softmax(logits, s.vocab_size);
      probability[first + r] = static_cast<float>(p[o.token]);
      logit_diff[first + r] = logits[o.token] - (o.against >= 0 ? logits[o.against] : 0.0f);
    }
  }

  AblationRanking ranking;
  ranking.layers = layers;
  ranking.heads = heads;
  ranking.probability = probability[0];
  ranking.logit_diff = logit_diff[0];
  std::vector<float> change(parts);
  for (int i = 0; i < parts; ++i) {
    const float dp = probability[i + 1] - probability[0], dl = logit_diff[i + 1] - logit_diff[0];
    change[i] = dl;
    if (i < layers * heads) {
      ranking.head_probability_change.push_back(dp);
      ranking.head_logit_diff_change.push_back(dl);
    } else {
      ranking.mlp_probability_change.push_back(dp);
      ranking.mlp_logit_diff_change.push_back(dl);
    }
  }
  ranking.order.resize(parts);
  std::iota(ranking.order.begin(), ranking.order.end(), 0);
  std::stable_sort(ranking.order.begin(), ranking.order.end(),
                   [&](int a, int b) { return std::fabs(change[a]) > std::fabs(change[b]); });
  return ranking;
}

}  // namespace attention
