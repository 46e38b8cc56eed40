// See attention/analysis/logit_lens.hpp.
#include "attention/analysis/logit_lens.hpp"

#include <algorithm>
#include <numeric>
#include <string>

#include "attention/analysis/unembed.hpp"

namespace attention {

namespace {
constexpr int kMaxTopK = 100;
}

Result<LogitLens> logit_lens(const Transformer& model, const std::vector<int>& ids, int top_k) {
  const ModelSpec& s = model.spec();
  if (Status ok = check_unembeddable(s); !ok) return ok.error_value();
  const int most = std::min(s.vocab_size, kMaxTopK);
  if (top_k < 1 || top_k > most)
    return Error("topK must be 1.." + std::to_string(most) + ", got " + std::to_string(top_k), error_code::kOutOfRange,
                 "topK");
  ForwardInput input;
  input.batch = 1;
  input.seq = static_cast<int>(ids.size());
  input.ids = ids;
  RecordFilter filter;
  filter.patterns = {std::string(kEncoderStack) + ".output", std::string(kDecoderStack) + ".output"};
  ForwardOptions options;
  options.record = &filter;
  options.logits = LogitRows::None;
  Result<ForwardOutput> out = model.forward(input, options);
  if (!out) return out.error_value();

  LogitLens lens;
  lens.layers = s.layers;
  lens.seq = input.seq;
  lens.top_k = top_k;
  const std::size_t seq = static_cast<std::size_t>(input.seq), k = static_cast<std::size_t>(top_k);
  lens.top_ids.resize(s.layers * seq * k);
  lens.top_probs.resize(s.layers * seq * k);
  lens.prediction.resize(seq);
  lens.prediction_probs.resize(s.layers * seq);
  std::vector<std::vector<double>> probs(static_cast<std::size_t>(s.layers) * seq);  // (L, S) rows of V
  for (const Stage& stage : out.value().trace.stages) {
    if (stage.id != StageId::LayerOutput || stage.layer < 0) continue;
    const std::vector<float> logits = unembed_rows(model, stage.tensor.ptr(), input.seq);
    for (std::size_t p = 0; p < seq; ++p) {
      std::vector<double>& row = probs[static_cast<std::size_t>(stage.layer) * seq + p];
      row = softmax(logits.data() + p * s.vocab_size, s.vocab_size);
      std::vector<int> order(static_cast<std::size_t>(s.vocab_size));
      std::iota(order.begin(), order.end(), 0);
      // Ties keep the lower id first, so every build ranks the same way.
      std::partial_sort(order.begin(), order.begin() + top_k, order.end(),
                        [&](int a, int b) { return row[a] > row[b] || (row[a] == row[b] && a < b); });
      for (std::size_t i = 0; i < k; ++i) {
        const std::size_t at = (static_cast<std::size_t>(stage.layer) * seq + p) * k + i;
        lens.top_ids[at] = order[i];
        lens.top_probs[at] = static_cast<float>(row[order[i]]);
      }
    }
  }
  for (std::size_t p = 0; p < seq; ++p) {
    lens.prediction[p] = lens.top_ids[((static_cast<std::size_t>(s.layers) - 1) * seq + p) * k];
    for (int l = 0; l < s.layers; ++l)
      lens.prediction_probs[static_cast<std::size_t>(l) * seq + p] =
          static_cast<float>(probs[static_cast<std::size_t>(l) * seq + p][lens.prediction[p]]);
  }
  return lens;
}

}  // namespace attention
