// Head detectors: see attention/analysis/head_scores.hpp.
#include "attention/analysis/head_scores.hpp"

#include <cstddef>

#include "attention/random.hpp"

namespace attention {

namespace {
constexpr int kMaxScoreBatch = 64;
}

Result<HeadPattern> parse_head_pattern(const std::string& name) {
  if (name == "previous") return HeadPattern::Previous;
  if (name == "duplicate") return HeadPattern::Duplicate;
  if (name == "induction") return HeadPattern::Induction;
  return Error("kind must be 'previous', 'duplicate' or 'induction', got '" + name + "'", error_code::kInvalidArgument,
               "kind");
}

const char* to_string(HeadPattern kind) {
  switch (kind) {
    case HeadPattern::Previous:
      return "previous";
    case HeadPattern::Duplicate:
      return "duplicate";
    case HeadPattern::Induction:
      return "induction";
  }
  return "";
}

std::vector<int> repeated_random_tokens(std::uint64_t seed, int length, int batch, int vocab) {
  SplitMix64 rng(seed);
  const int seq = 2 * length;
  std::vector<int> ids(static_cast<std::size_t>(batch) * seq);
  for (int b = 0; b < batch; ++b)
    for (int i = 0; i < length; ++i) {
      const int id = static_cast<int>(rng.next() % static_cast<std::uint64_t>(vocab));
      ids[static_cast<std::size_t>(b) * seq + i] = id;
      ids[static_cast<std::size_t>(b) * seq + length + i] = id;
    }
  return ids;
}

std::vector<float> detection_pattern(HeadPattern kind, const std::vector<int>& ids) {
  const int seq = static_cast<int>(ids.size());
  std::vector<float> p(static_cast<std::size_t>(seq) * seq, 0.0f);
  const auto at = [&](int q, int k) -> float& { return p[static_cast<std::size_t>(q) * seq + k]; };
  for (int q = 0; q < seq; ++q)
    for (int k = 0; k <= q; ++k) {
      switch (kind) {
        case HeadPattern::Previous:
          at(q, k) = k == q - 1 ? 1.0f : 0.0f;
          break;
        case HeadPattern::Duplicate:
          at(q, k) = k < q && ids[k] == ids[q] ? 1.0f : 0.0f;
          break;
        // The duplicate pattern moved one key to the right: key k follows an earlier copy k-1.
        case HeadPattern::Induction:
          at(q, k) = k >= 1 && k - 1 < q && ids[k - 1] == ids[q] ? 1.0f : 0.0f;
          break;
      }
    }
  return p;
}

std::vector<float> score_layer(HeadPattern kind, const Tensor& weights, const std::vector<int>& ids) {
  // weights: (B, H, Sq, Sk) with Sq = Sk = S.
  const int batch = weights.shape[0], heads = weights.shape[1], seq = weights.shape[2];
  std::vector<double> total(static_cast<std::size_t>(heads), 0.0);
  for (int b = 0; b < batch; ++b) {
    const std::vector<int> row(ids.begin() + static_cast<std::ptrdiff_t>(b) * seq,
                               ids.begin() + static_cast<std::ptrdiff_t>(b + 1) * seq);
    const std::vector<float> pattern = detection_pattern(kind, row);
    for (int h = 0; h < heads; ++h) {
      const float* a = weights.ptr() + (static_cast<std::size_t>(b) * heads + h) * seq * seq;
      double on = 0, all = 0;
      for (std::size_t i = 0; i < pattern.size(); ++i) {
        on += static_cast<double>(a[i]) * pattern[i];
        all += a[i];
      }
      total[static_cast<std::size_t>(h)] += all > 0 ? on / all : 0.0;
    }
  }
  std::vector<float> scores(static_cast<std::size_t>(heads));
  for (int h = 0; h < heads; ++h) scores[static_cast<std::size_t>(h)] = static_cast<float>(total[h] / batch);
  return scores;
}

Result<Tensor> head_scores(const Transformer& model, const HeadScoreOptions& options) {
  const ModelSpec& spec = model.spec();
  if (spec.encoder_decoder())
    return Error("head scores need a single stack (an encoder or a decoder), not an encoder–decoder",
                 error_code::kInvalidArgument, "model");
  if (options.length < 1 || 2 * options.length > spec.max_seq)
    return Error("length must be 1.." + std::to_string(spec.max_seq / 2) + " (twice it fits maxSeq " +
                     std::to_string(spec.max_seq) + "), got " + std::to_string(options.length),
                 error_code::kOutOfRange, "length");
  if (options.batch < 1 || options.batch > kMaxScoreBatch)
    return Error("batch must be 1.." + std::to_string(kMaxScoreBatch) + ", got " + std::to_string(options.batch),
                 error_code::kOutOfRange, "batch");
  ForwardInput input;
  input.batch = options.batch;
  input.seq = 2 * options.length;
  input.ids = repeated_random_tokens(options.seed, options.length, options.batch, spec.vocab_size);
  RecordFilter filter;
  filter.patterns = {"*.self_attn.weights"};
  ForwardOptions forward;
  forward.logits = LogitRows::None;
  forward.record = &filter;
  Result<ForwardOutput> out = model.forward(input, forward);
  if (!out) return out.error_value();
  Tensor scores({"L", "H"}, {spec.layers, spec.heads});
  for (const Stage& stage : out.value().trace.stages) {
    if (stage.id != StageId::Weights || stage.layer < 0) continue;
    const std::vector<float> layer = score_layer(options.kind, stage.tensor, input.ids);
    for (int h = 0; h < spec.heads; ++h)
      scores.data[static_cast<std::size_t>(stage.layer) * spec.heads + h] = layer[static_cast<std::size_t>(h)];
  }
  return scores;
}

}  // namespace attention
