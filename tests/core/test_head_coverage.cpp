// The read-only head tools on BERT, the hub families and the shipped toy models (issue 29's
// coverage), against PyTorch (tests/reference/generate_head_coverage_fixtures.py,
// fixtures/heads-coverage.json): the head detectors, the logit lens (BERT through its MLM head),
// attention rollout,
// and direct logit attribution where it applies; where it does not (BERT, Gemma 3's sandwich
// norms) a coded error.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "analysis_fixture.hpp"
#include "attention/analysis/attention_rollout.hpp"
#include "attention/analysis/head_scores.hpp"
#include "attention/analysis/logit_attribution.hpp"
#include "attention/analysis/logit_lens.hpp"

namespace attention {
namespace {

using analysis_fixture::json;

void expect_near(double got, double want, const std::string& what) {
  EXPECT_NEAR(got, want, 1e-4 * std::max(1.0, std::fabs(want))) << what;
}

json coverage() {
  return json::parse(analysis_fixture::read_text(std::string(ATTENTION_FIXTURE_DIR) + "/heads-coverage.json"));
}

Transformer model_of_case(const json& c) {
  const std::string source = c["source"];
  if (source.find('/') == std::string::npos) return analysis_fixture::load_checkpoint(source);
  return analysis_fixture::load_reference_model(source);
}

TEST(HeadCoverage, DetectorsLensRolloutAndAttributionMatchPyTorchOnBertHubFamiliesAndToyModels) {
  const json golden = coverage();
  ASSERT_EQ(golden["cases"].size(), 10u);
  for (const json& c : golden["cases"]) {
    SCOPED_TRACE(c["name"].get<std::string>());
    const Transformer model = model_of_case(c);
    const std::vector<int> ids = c["ids"];
    const int seq = static_cast<int>(ids.size());

    const json& want = c["lens"];
    const int k = want["topK"];
    Result<LogitLens> lens = logit_lens(model, ids, k);
    ASSERT_TRUE(lens) << lens.error();
    const LogitLens& got = lens.value();
    for (int l = 0; l < got.layers; ++l)
      for (int p = 0; p < seq; ++p) {
        for (int i = 0; i < k; ++i) {
          const std::size_t at = (static_cast<std::size_t>(l) * seq + p) * k + i;
          EXPECT_EQ(got.top_ids[at], want["topIds"][l][p][i].get<int>()) << l << "," << p << "," << i;
          expect_near(got.top_probs[at], want["topProbs"][l][p][i], "top prob");
        }
        expect_near(got.prediction_probs[static_cast<std::size_t>(l) * seq + p], want["predictionProbs"][l][p],
                    "prediction prob");
      }
    EXPECT_EQ(got.prediction, want["prediction"].get<std::vector<int>>());

    const json& detectors = c["headScores"];
    for (const char* kind : {"previous", "duplicate", "induction"}) {
      HeadScoreOptions options;
      options.kind = parse_head_pattern(kind).value();
      options.seed = detectors["seed"];
      options.length = detectors["length"];
      options.batch = detectors["batch"];
      Result<Tensor> scores = head_scores(model, options);
      ASSERT_TRUE(scores) << scores.error();
      for (int l = 0; l < model.spec().layers; ++l)
        for (int h = 0; h < model.spec().heads; ++h)
          expect_near(scores.value().data[static_cast<std::size_t>(l) * model.spec().heads + h],
                      detectors["scores"][kind][l][h], std::string(kind) + " score");
    }

    Result<Tensor> rollout = attention_rollout(model, ids);
    ASSERT_TRUE(rollout) << rollout.error();
    for (int q = 0; q < seq; ++q)
      for (int s = 0; s < seq; ++s)
        expect_near(rollout.value().data[static_cast<std::size_t>(q) * seq + s], c["rollout"][q][s], "rollout");

    LogitAttributionOptions o;
    o.ids = ids;
    if (!c.contains("attribution")) {  // BERT (post-LN, MLM head) and Gemma 3 (sandwich norms)
      o.position = seq - 1;
      Result<LogitAttribution> refused = logit_attribution(model, o);
      ASSERT_FALSE(refused);
      EXPECT_EQ(refused.error_value().field, "model");
      continue;
    }
    const json& a = c["attribution"];
    o.position = a["position"];
    o.token = a["token"];
    o.against = a["against"];
    Result<LogitAttribution> r = logit_attribution(model, o);
    ASSERT_TRUE(r) << r.error();
    expect_near(r.value().embed, a["embed"], "embed");
    expect_near(r.value().biases, a["biases"], "biases");
    expect_near(r.value().logit, a["logit"], "logit");
    for (int l = 0; l < model.spec().layers; ++l) {
      expect_near(r.value().mlps[l], a["mlps"][l], "mlp");
      for (int h = 0; h < model.spec().heads; ++h)
        expect_near(r.value().heads_part[static_cast<std::size_t>(l) * model.spec().heads + h], a["heads"][l][h],
                    "head");
    }
  }
}

TEST(HeadCoverage, BertsLensEndsInItsOwnMaskedPrediction) {
  // The MLM head applied to the last layer is the model's forward: the lens's final prediction is
  // the argmax of forward()'s logits at every position.
  const Transformer model = analysis_fixture::load_reference_model("pretrained/bert-tiny-mlm");
  const std::vector<int> ids = {2, 40, 13, 7, 300, 12, 3};
  ForwardInput in;
  in.batch = 1;
  in.seq = 7;
  in.ids = ids;
  const Tensor logits = model.forward(in).value().logits;
  const LogitLens lens = logit_lens(model, ids, 1).value();
  const int v = model.spec().vocab_size;
  for (int p = 0; p < 7; ++p)
    EXPECT_EQ(lens.prediction[p],
              std::max_element(logits.ptr() + p * v, logits.ptr() + (p + 1) * v) - (logits.ptr() + p * v));
}

}  // namespace
}  // namespace attention
