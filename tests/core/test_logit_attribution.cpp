// Direct logit attribution (attention/analysis/logit_attribution.hpp) against PyTorch (hooks
// on the merged heads, the MLPs and the final norm; apply_ln_to_stack's frozen scale:
// tests/reference/generate_head_fixtures.py), and the parts adding up to the logit.
#include <gtest/gtest.h>

#include <cmath>
#include <numeric>
#include <string>
#include <vector>

#include "analysis_fixture.hpp"
#include "attention/analysis/logit_attribution.hpp"

namespace attention {
namespace {

using analysis_fixture::json;

void expect_near(double got, double want, const std::string& what) {
  EXPECT_NEAR(got, want, 1e-4 * std::max(1.0, std::fabs(want))) << what;
}

double total(const LogitAttribution& a) {
  return a.embed + a.biases + std::accumulate(a.heads_part.begin(), a.heads_part.end(), 0.0) +
         std::accumulate(a.mlps.begin(), a.mlps.end(), 0.0);
}

TEST(LogitAttribution, MatchesPyTorchAndAddsUpToTheLogit) {
  const json golden = analysis_fixture::golden();
  ASSERT_EQ(golden["cases"].size(), 3u);
  for (const json& c : golden["cases"]) {
    SCOPED_TRACE(c["name"].get<std::string>());
    const Transformer model = analysis_fixture::load_reference_model(c["source"]);
    const json& want = c["attribution"];
    LogitAttributionOptions o;
    o.ids = want["ids"].get<std::vector<int>>();
    o.position = want["position"];
    o.token = want["token"];
    o.against = want["against"];
    Result<LogitAttribution> a = logit_attribution(model, o);
    ASSERT_TRUE(a) << a.error();
    const LogitAttribution& got = a.value();
    expect_near(got.embed, want["embed"], "embed");
    expect_near(got.biases, want["biases"], "biases");
    expect_near(got.logit, want["logit"], "logit");
    for (int l = 0; l < got.layers; ++l) {
      expect_near(got.mlps[l], want["mlps"][l], "mlp " + std::to_string(l));
      for (int h = 0; h < got.heads; ++h)
        expect_near(got.heads_part[static_cast<std::size_t>(l) * got.heads + h], want["heads"][l][h],
                    "head " + std::to_string(l) + "," + std::to_string(h));
    }
    expect_near(total(got), got.logit, "the parts' sum");
  }
}

TEST(LogitAttribution, TheInductionHeadCarriesTheCopiedToken) {
  // The shipped induction model (pre-LN) predicting the repeat's next token: the parts add up,
  // and the second layer's head 0 (the induction head) writes the most for it.
  const Transformer model = analysis_fixture::load_checkpoint("induction");
  LogitAttributionOptions o;
  o.ids = {3, 5, 7, 2, 6, 3, 5, 7, 2, 6};
  o.position = 6;  // token 5 of the repeat: next comes 7
  o.token = 7;
  Result<LogitAttribution> a = logit_attribution(model, o);
  ASSERT_TRUE(a) << a.error();
  expect_near(total(a.value()), a.value().logit, "the parts' sum");
  const std::vector<float>& heads = a.value().heads_part;
  std::printf("induction model, logit of the copied token: heads %.3f %.3f %.3f %.3f, mlps %.3f %.3f, embed %.3f\n",
              heads[0], heads[1], heads[2], heads[3], a.value().mlps[0], a.value().mlps[1], a.value().embed);
  EXPECT_EQ(std::max_element(heads.begin(), heads.end()) - heads.begin(), 2);
}

TEST(LogitAttribution, RefusesBadArgumentsAndPostLnModels) {
  const Transformer model = analysis_fixture::load_checkpoint("induction");
  LogitAttributionOptions o;
  o.ids = {1, 2, 3};
  o.position = 3;
  Result<LogitAttribution> a = logit_attribution(model, o);
  ASSERT_FALSE(a);
  EXPECT_EQ(a.error_value().field, "position");
  o.position = 2;
  o.token = model.spec().vocab_size;
  a = logit_attribution(model, o);
  ASSERT_FALSE(a);
  EXPECT_EQ(a.error_value().field, "token");
  o.token = 1;
  o.against = -2;
  EXPECT_EQ(logit_attribution(model, o).error_value().field, "against");
  ModelSpec post = model.spec();
  post.norm = NormPlacement::Post;
  Result<Transformer> post_model = Transformer::create(post);
  ASSERT_TRUE(post_model);
  o.against = -1;
  a = logit_attribution(post_model.value(), o);
  ASSERT_FALSE(a);
  EXPECT_EQ(a.error_value().field, "model");
}

}  // namespace
}  // namespace attention
