// Head detectors (attention/analysis/head_scores.hpp): the detection patterns, the shipped
// induction checkpoint's heads, and the scores against TransformerLens's definitions computed
// by PyTorch (tests/reference/generate_head_fixtures.py).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "analysis_fixture.hpp"
#include "attention/analysis/head_scores.hpp"

namespace attention {
namespace {

using json = nlohmann::json;
using analysis_fixture::load_checkpoint;
using analysis_fixture::load_reference_model;
using analysis_fixture::read_text;

TEST(HeadScores, DetectionPatternsAreTransformerLensOnes) {
  // ids 5 7 5 7: previous = the sub-diagonal; duplicate = earlier equal tokens;
  // induction = the key after an earlier copy (query 2 (5) -> key 1 (after 5 at 0)).
  const std::vector<int> ids = {5, 7, 5, 7};
  const auto cells = [](const std::vector<float>& p) {
    std::vector<std::pair<int, int>> on;
    for (int q = 0; q < 4; ++q)
      for (int k = 0; k < 4; ++k)
        if (p[q * 4 + k] == 1.0f) on.emplace_back(q, k);
    return on;
  };
  using Cells = std::vector<std::pair<int, int>>;
  EXPECT_EQ(cells(detection_pattern(HeadPattern::Previous, ids)), (Cells{{1, 0}, {2, 1}, {3, 2}}));
  EXPECT_EQ(cells(detection_pattern(HeadPattern::Duplicate, ids)), (Cells{{2, 0}, {3, 1}}));
  EXPECT_EQ(cells(detection_pattern(HeadPattern::Induction, ids)), (Cells{{2, 1}, {3, 2}}));
  // An adjacent repeat: the induction pattern may fall on the current token (k = q).
  EXPECT_EQ(cells(detection_pattern(HeadPattern::Induction, {3, 3, 1, 1})), (Cells{{1, 1}, {3, 3}}));
}

TEST(HeadScores, RepeatedRandomTokensRepeatEachRow) {
  const std::vector<int> ids = repeated_random_tokens(7, 5, 3, 11);
  ASSERT_EQ(ids.size(), 30u);
  for (int b = 0; b < 3; ++b)
    for (int i = 0; i < 5; ++i) {
      EXPECT_EQ(ids[b * 10 + i], ids[b * 10 + 5 + i]);
      EXPECT_GE(ids[b * 10 + i], 0);
      EXPECT_LT(ids[b * 10 + i], 11);
    }
  EXPECT_NE(repeated_random_tokens(8, 5, 3, 11), ids);
}

TEST(HeadScores, FindTheShippedInductionModelsInductionAndPreviousTokenHeads) {
  const Transformer model = load_checkpoint("induction");
  ASSERT_EQ(model.spec().layers, 2);
  HeadScoreOptions options;
  options.seed = 1;
  options.length = 7;
  options.batch = 16;
  const auto scores = [&](HeadPattern kind) {
    options.kind = kind;
    Result<Tensor> s = head_scores(model, options);
    EXPECT_TRUE(s) << s.error();
    return s.value();
  };
  const Tensor induction = scores(HeadPattern::Induction), previous = scores(HeadPattern::Previous);
  for (int h = 0; h < 2; ++h)
    std::printf("induction model head %d: L0 previous %.3f induction %.3f | L1 previous %.3f induction %.3f\n", h,
                previous.at({0, h}), induction.at({0, h}), previous.at({1, h}), induction.at({1, h}));
  // The best induction head of all is the second layer's head 0 (the one docs/training.md
  // describes), with most of its attention on the token after the earlier copy.
  const float* best = std::max_element(induction.data.data(), induction.data.data() + 4);
  EXPECT_EQ(best - induction.data.data(), 2);  // (layer 1, head 0)
  EXPECT_GT(*best, 0.5f);
  // A first-layer head attends to the previous token.
  const float best_previous = std::max(previous.at({0, 0}), previous.at({0, 1}));
  EXPECT_GT(best_previous, 0.5f);
}

TEST(HeadScores, MatchTransformerLensDefinitionsOnPyTorchAttention) {
  const json golden = json::parse(read_text(std::string(ATTENTION_FIXTURE_DIR) + "/heads.json"));
  ASSERT_EQ(golden["cases"].size(), 3u);
  for (const json& c : golden["cases"]) {
    SCOPED_TRACE(c["name"].get<std::string>());
    const Transformer model = load_reference_model(c["source"]);
    HeadScoreOptions options;
    options.seed = c["seed"];
    options.length = c["length"];
    options.batch = c["batch"];
    // The same tokens as the reference's SplitMix64 draws.
    std::vector<int> ids;
    for (const json& row : c["ids"])
      for (int id : row) ids.push_back(id);
    ASSERT_EQ(repeated_random_tokens(options.seed, options.length, options.batch, model.spec().vocab_size), ids);
    for (const char* kind : {"previous", "duplicate", "induction"}) {
      options.kind = parse_head_pattern(kind).value();
      Result<Tensor> scores = head_scores(model, options);
      ASSERT_TRUE(scores) << scores.error();
      const json& want = c["scores"][kind];
      ASSERT_EQ(scores.value().shape,
                (std::vector<int>{static_cast<int>(want.size()), static_cast<int>(want[0].size())}));
      for (int l = 0; l < scores.value().shape[0]; ++l)
        for (int h = 0; h < scores.value().shape[1]; ++h) {
          const double w = want[l][h];
          EXPECT_NEAR(scores.value().at({l, h}), w, 1e-4 * std::max(1.0, std::fabs(w))) << kind << " " << l << "," << h;
        }
    }
  }
}

TEST(HeadScores, BadOptionsAreCodedErrors) {
  const Transformer model = load_checkpoint("induction");
  HeadScoreOptions options;
  options.length = model.spec().max_seq;  // 2 length > maxSeq
  Result<Tensor> s = head_scores(model, options);
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error_value().field, "length");
  EXPECT_EQ(s.error_value().code, error_code::kOutOfRange);
  options.length = 4;
  options.batch = 0;
  s = head_scores(model, options);
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error_value().field, "batch");
  Result<HeadPattern> kind = parse_head_pattern("copying");
  ASSERT_FALSE(kind);
  EXPECT_EQ(kind.error_value().field, "kind");
}

}  // namespace
}  // namespace attention
