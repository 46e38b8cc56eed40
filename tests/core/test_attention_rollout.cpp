// Attention rollout (attention/analysis/attention_rollout.hpp) against PyTorch's attention
// weights (tests/reference/generate_head_fixtures.py), and its rows summing to 1.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "analysis_fixture.hpp"
#include "attention/analysis/attention_rollout.hpp"

namespace attention {
namespace {

using analysis_fixture::json;

TEST(AttentionRollout, MatchesPyTorchOnGpt2LlamaAndQwen2) {
  const json golden = analysis_fixture::golden();
  ASSERT_EQ(golden["cases"].size(), 3u);
  for (const json& c : golden["cases"]) {
    SCOPED_TRACE(c["name"].get<std::string>());
    const Transformer model = analysis_fixture::load_reference_model(c["source"]);
    const json& want = c["rollout"];
    const std::vector<int> ids = want["ids"];
    Result<Tensor> r = attention_rollout(model, ids);
    ASSERT_TRUE(r) << r.error();
    const int s = static_cast<int>(ids.size());
    ASSERT_EQ(r.value().shape, (std::vector<int>{s, s}));
    for (int q = 0; q < s; ++q) {
      double row = 0;
      for (int k = 0; k < s; ++k) {
        const double w = want["rollout"][q][k];
        EXPECT_NEAR(r.value().at({q, k}), w, 1e-4 * std::max(1.0, std::fabs(w))) << q << "," << k;
        row += r.value().at({q, k});
      }
      EXPECT_NEAR(row, 1.0, 1e-5);
    }
  }
}

TEST(AttentionRollout, OneUniformLayerIsHalfIdentityHalfAverage) {
  // Two heads, S = 2, causal uniform weights: A = [[1, 0], [0.5, 0.5]].
  const std::vector<float> w = {1, 0, 0.5f, 0.5f, 1, 0, 0.5f, 0.5f};
  const std::vector<double> r = rollout_of({w.data()}, 2, 2);
  EXPECT_DOUBLE_EQ(r[0], 1.0);
  EXPECT_DOUBLE_EQ(r[1], 0.0);
  EXPECT_DOUBLE_EQ(r[2], 0.25);
  EXPECT_DOUBLE_EQ(r[3], 0.75);
}

TEST(AttentionRollout, RefusesBadIds) {
  const Transformer model = analysis_fixture::load_checkpoint("induction");
  Result<Tensor> r = attention_rollout(model, {1, model.spec().vocab_size});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error_value().field, "ids");
}

}  // namespace
}  // namespace attention
