// See analysis_bindings.hpp. Copies only; the math is in core/src/analysis/.
#include "analysis_bindings.hpp"

#include <cstdint>
#include <string>

#include "attention/analysis/ablation.hpp"
#include "attention/analysis/attention_rollout.hpp"
#include "attention/analysis/head_scores.hpp"
#include "attention/analysis/logit_attribution.hpp"
#include "attention/analysis/logit_lens.hpp"
#include "js_values.hpp"

namespace attention::js {

val head_scores_js(ModelHandle& model, val options) {
  Result<HeadPattern> kind = parse_head_pattern(options["kind"].as<std::string>());
  if (!kind) return error(kind.error_value());
  HeadScoreOptions o;
  o.kind = kind.value();
  o.seed = static_cast<std::uint64_t>(options["seed"].as<double>());
  o.length = options["length"].as<int>();
  o.batch = options["batch"].as<int>();
  Result<Tensor> scores = head_scores(*model.shared(), o);
  if (!scores) return error(scores.error_value());
  return to_float32_array(scores.value().data);
}

namespace {
val to_int32_array(const std::vector<int>& v) {
  val out = val::global("Int32Array").new_(v.size());
  out.call<void>("set", val(emscripten::typed_memory_view(v.size(), v.data())));
  return out;
}

// The prediction a tool explains, as the package passes it: the text's ids, the position, the
// target token and the token it is compared against (LogitAttributionOptions,
// AblationRankingOptions).
template <typename Options>
void read_target(const val& options, Options& o) {
  o.ids = read_ints(options["ids"]);
  o.position = options["position"].as<int>();
  o.token = options["token"].as<int>();
  o.against = options["against"].as<int>();
}
}  // namespace

val logit_lens_js(ModelHandle& model, val options) {
  Result<LogitLens> lens = logit_lens(*model.shared(), read_ints(options["ids"]), options["topK"].as<int>());
  if (!lens) return error(lens.error_value());
  const LogitLens& l = lens.value();
  val out = val::object();
  out.set("layers", l.layers);
  out.set("seq", l.seq);
  out.set("topK", l.top_k);
  out.set("topIds", to_int32_array(l.top_ids));
  out.set("topProbs", to_float32_array(l.top_probs));
  out.set("prediction", to_int32_array(l.prediction));
  out.set("predictionProbs", to_float32_array(l.prediction_probs));
  return out;
}

val logit_attribution_js(ModelHandle& model, val options) {
  LogitAttributionOptions o;
  read_target(options, o);
  Result<LogitAttribution> r = logit_attribution(*model.shared(), o);
  if (!r) return error(r.error_value());
  val out = val::object();
  out.set("heads", to_float32_array(r.value().heads_part));
  out.set("mlps", to_float32_array(r.value().mlps));
  out.set("embed", r.value().embed);
  out.set("biases", r.value().biases);
  out.set("logit", r.value().logit);
  return out;
}

val attention_rollout_js(ModelHandle& model, val options) {
  Result<Tensor> r = attention_rollout(*model.shared(), read_ints(options["ids"]));
  if (!r) return error(r.error_value());
  return to_float32_array(r.value().data);
}

val forward_ablated_js(ModelHandle& model, val input) {
  ForwardOptions options;
  options.ablated_heads = read_heads(input["ablate"]);
  const std::vector<int> mlps = read_ints(input["ablateMlps"]);
  for (int layer : mlps) options.ablated_mlps.push_back(MlpRef{layer});
  Result<AblationMeans> means = Error("unused");
  if (input["ablation"].as<std::string>() == "mean") {
    means = ablation_means(*model.shared(), read_ints(input["meanOver"]), input["meanCount"].as<int>(),
                           input["seq"].as<int>());
    if (!means) return error(means.error_value());
    options.means = &means.value();
  }
  return model.forward_with(input, std::move(options));
}

val ablation_ranking_js(ModelHandle& model, val options) {
  AblationRankingOptions o;
  read_target(options, o);
  o.mean = options["mean"].as<bool>();
  if (o.mean) {
    o.mean_over = read_ints(options["meanOver"]);
    o.mean_count = options["meanCount"].as<int>();
  }
  Result<AblationRanking> r = ablation_ranking(*model.shared(), o);
  if (!r) return error(r.error_value());
  const AblationRanking& a = r.value();
  val out = val::object();
  out.set("probability", a.probability);
  out.set("logitDiff", a.logit_diff);
  out.set("headProbabilityChange", to_float32_array(a.head_probability_change));
  out.set("headLogitDiffChange", to_float32_array(a.head_logit_diff_change));
  out.set("mlpProbabilityChange", to_float32_array(a.mlp_probability_change));
  out.set("mlpLogitDiffChange", to_float32_array(a.mlp_logit_diff_change));
  out.set("order", to_int32_array(a.order));
  return out;
}

}  // namespace attention::js
