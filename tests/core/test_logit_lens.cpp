// The logit lens (attention/analysis/logit_lens.hpp) against PyTorch (forward hooks on each
// block, the final norm and the unembedding: tests/reference/generate_head_fixtures.py).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "analysis_fixture.hpp"
#include "attention/analysis/logit_lens.hpp"
#include "attention/analysis/unembed.hpp"

namespace attention {
namespace {

using analysis_fixture::json;

void expect_near(double got, double want, const std::string& what) {
  EXPECT_NEAR(got, want, 1e-4 * std::max(1.0, std::fabs(want))) << what;
}

TEST(LogitLens, MatchesPyTorchOnGpt2LlamaAndQwen2) {
  const json golden = analysis_fixture::golden();
  ASSERT_EQ(golden["cases"].size(), 3u);
  for (const json& c : golden["cases"]) {
    SCOPED_TRACE(c["name"].get<std::string>());
    const Transformer model = analysis_fixture::load_reference_model(c["source"]);
    const json& want = c["lens"];
    const std::vector<int> ids = want["ids"];
    const int k = want["topK"];
    Result<LogitLens> lens = logit_lens(model, ids, k);
    ASSERT_TRUE(lens) << lens.error();
    const LogitLens& got = lens.value();
    ASSERT_EQ(got.layers, model.spec().layers);
    ASSERT_EQ(got.seq, static_cast<int>(ids.size()));
    for (int l = 0; l < got.layers; ++l)
      for (int p = 0; p < got.seq; ++p) {
        for (int i = 0; i < k; ++i) {
          const std::size_t at = (static_cast<std::size_t>(l) * got.seq + p) * k + i;
          EXPECT_EQ(got.top_ids[at], want["topIds"][l][p][i].get<int>()) << l << "," << p << "," << i;
          expect_near(got.top_probs[at], want["topProbs"][l][p][i], "top prob");
        }
        expect_near(got.prediction_probs[static_cast<std::size_t>(l) * got.seq + p], want["predictionProbs"][l][p],
                    "prediction prob");
      }
    EXPECT_EQ(got.prediction, want["prediction"].get<std::vector<int>>());
  }
}

TEST(LogitLens, TheLastLayerIsTheModelsOwnPrediction) {
  const Transformer model = analysis_fixture::load_checkpoint("induction");
  const std::vector<int> ids = {3, 5, 7, 2, 3, 5, 7, 2};
  ForwardInput in;
  in.batch = 1;
  in.seq = 8;
  in.ids = ids;
  Result<ForwardOutput> out = model.forward(in);
  ASSERT_TRUE(out);
  Result<LogitLens> lens = logit_lens(model, ids, 2);
  ASSERT_TRUE(lens) << lens.error();
  const int v = model.spec().vocab_size, last = model.spec().layers - 1;
  for (int p = 0; p < 8; ++p) {
    const std::vector<double> probs = softmax(out.value().logits.ptr() + p * v, v);
    const int argmax = static_cast<int>(std::max_element(probs.begin(), probs.end()) - probs.begin());
    EXPECT_EQ(lens.value().prediction[p], argmax);
    expect_near(lens.value().prediction_probs[static_cast<std::size_t>(last) * 8 + p], probs[argmax], "last layer");
  }
}

TEST(LogitLens, RefusesBadTopKAndModelsWithoutAHead) {
  const Transformer model = analysis_fixture::load_checkpoint("induction");
  Result<LogitLens> lens = logit_lens(model, {1, 2}, 0);
  ASSERT_FALSE(lens);
  EXPECT_EQ(lens.error_value().field, "topK");
  EXPECT_EQ(lens.error_value().code, error_code::kOutOfRange);
  lens = logit_lens(model, {1, 2, model.spec().vocab_size}, 1);
  ASSERT_FALSE(lens);
  EXPECT_EQ(lens.error_value().field, "ids");
  ModelSpec mlm;  // BERT's MLM head: read through its transform (test_head_coverage.cpp)
  mlm.head = OutputHead::Mlm;
  EXPECT_TRUE(check_unembeddable(mlm));
  ModelSpec none;
  none.head = OutputHead::None;
  EXPECT_FALSE(check_unembeddable(none));
  ModelSpec encdec;
  encdec.encoder_layers = 1;
  EXPECT_FALSE(check_unembeddable(encdec));
}

}  // namespace
}  // namespace attention
