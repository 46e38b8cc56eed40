// See attention/analysis/ablation.hpp.
#include "attention/analysis/ablation.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>

#include "attention/analysis/unembed.hpp"
#include "attention/masks.hpp"

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
  const int row_at = o.position;  // the row whose prediction is read
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

  const int layers = s.layers, heads = s.heads, e = s.d_model, parts = layers * heads + layers;
  const std::vector<int> ids(o.ids.begin(), o.ids.begin() + seq);
  // The clean run, keeping every layer's input: an ablation in layer l leaves layers 0..l-1 as
  // they were, so its rows start from layer l's clean input (B rows of (S, E)).
  ForwardInput input;
  input.batch = 1;
  input.seq = seq;
  input.ids = ids;
  RecordFilter filter;
  filter.patterns = {std::string(kEncoderStack) + ".input", std::string(kDecoderStack) + ".input",
                     std::string(kEncoderStack) + ".output", std::string(kDecoderStack) + ".output"};
  ForwardOptions clean_options;
  clean_options.record = &filter;
  clean_options.logits = LogitRows::None;
  Result<ForwardOutput> clean = model.forward(input, clean_options);
  if (!clean) return clean.error_value();
  std::vector<Tensor> layer_input(static_cast<std::size_t>(layers) + 1);  // [L]: the last layer's output
  for (Stage& stage : clean.value().trace.stages) {
    if (stage.id == StageId::Input && stage.layer < 0) layer_input[0] = std::move(stage.tensor);
    if (stage.id == StageId::LayerOutput && stage.layer >= 0) layer_input[stage.layer + 1] = std::move(stage.tensor);
  }

  // Item 0 is the clean run; item 1 + i ablates part i (i < L H: head (i / H, i % H); else an MLP).
  std::vector<float> probability(parts + 1), logit_diff(parts + 1);
  // x: (B, S, E) outputs of the last layer -> each row's prediction at the position, into items.
  auto read_out = [&](const Tensor& x, const std::vector<int>& items) {
    const int rows = static_cast<int>(items.size());
    std::vector<float> picked(static_cast<std::size_t>(rows) * e);
    for (int r = 0; r < rows; ++r)
      std::copy_n(x.ptr() + (static_cast<std::size_t>(r) * seq + row_at) * e, e,
                  picked.data() + static_cast<std::size_t>(r) * e);
    const std::vector<float> logits = unembed_rows(model, picked.data(), rows, Backend::Fast);  // (B, V)
    for (int r = 0; r < rows; ++r) {
      const float* row = logits.data() + static_cast<std::size_t>(r) * s.vocab_size;
      probability[items[r]] = static_cast<float>(softmax(row, s.vocab_size)[o.token]);
      logit_diff[items[r]] = row[o.token] - (o.against >= 0 ? row[o.against] : 0.0f);
    }
  };
  read_out(layer_input[layers], {0});

  const double per_row = estimate_forward_floats(s, 1, seq, 0, false);
  const int chunk = static_cast<int>(
      std::clamp(static_cast<double>(kMaxTraceFloats) / 2 / std::max(per_row, 1.0), 1.0, double{kRankingChunk}));
  const RopeTables ropes = rope_tables(s, seq);
  for (int first_layer = 0; first_layer < layers; ++first_layer) {
    // The parts of this layer: its heads, then its MLP (H + 1 rows, in passes of at most `chunk`).
    std::vector<int> layer_parts;
    for (int h = 0; h < heads; ++h) layer_parts.push_back(first_layer * heads + h);
    layer_parts.push_back(layers * heads + first_layer);
    for (std::size_t begin = 0; begin < layer_parts.size(); begin += chunk) {
      const int rows = static_cast<int>(std::min(layer_parts.size() - begin, static_cast<std::size_t>(chunk)));
      std::vector<HeadRef> ablated_heads;
      std::vector<MlpRef> ablated_mlps;
      std::vector<int> items;
      for (int r = 0; r < rows; ++r) {
        const int part = layer_parts[begin + r];
        if (part < layers * heads)
          ablated_heads.push_back(HeadRef{first_layer, part % heads, r});
        else
          ablated_mlps.push_back(MlpRef{first_layer, r});
        items.push_back(part + 1);
      }
      Tensor x({"B", "S", "E"}, {rows, seq, e});
      for (int r = 0; r < rows; ++r)
        std::copy(layer_input[first_layer].data.begin(), layer_input[first_layer].data.end(),
                  x.data.begin() + static_cast<std::ptrdiff_t>(r) * seq * e);
      const Tensor padding = key_padding_mask(std::vector<int>(rows, seq), seq);  // nothing padded
      for (int l = first_layer; l < layers; ++l) {  // as Transformer::forward runs a single stack
        LayerOptions lo = layer_options(s, Backend::Fast);
        const LayerPositions positions = layer_positions(s, l, ropes);
        lo.rope = positions.rope;
        lo.alibi = positions.alibi;
        lo.window = positions.window;
        if (l == first_layer) {
          lo.ablated_heads = heads_of_layer(ablated_heads, l);
          lo.ablated_rows = head_rows_of_layer(ablated_heads, l);
          lo.ablated_mlp_rows = mlp_rows_of_layer(ablated_mlps, l);
          lo.head_means = o.mean ? &means.heads[l] : nullptr;
          lo.mlp_mean = o.mean ? &means.mlps[l] : nullptr;
        }
        Result<Tensor> y = encoder_layer(x, model.encoder_layers()[l], lo, &padding, s.causal);
        if (!y) return y.error_value();
        x = std::move(y.value());
      }
      read_out(x, items);
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
