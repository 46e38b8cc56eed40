// Zero and mean ablation of heads and MLPs, and the ablation ranking (issue 29): matched to
// PyTorch forward hooks (tests/reference/generate_ablation_fixtures.py, fixtures/ablation.json)
// on GPT-2, BERT, the hub families and the shipped toy models; checked against independent
// constructions (an MLP with zeroed weights; a mean over the sequence itself); bad arguments are
// coded errors naming the field.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "analysis_fixture.hpp"
#include "attention/analysis/ablation.hpp"
#include "test_util.hpp"

using namespace attention;
using attention::analysis_fixture::json;
using attention::testing::all_close;

// Element by element within rtol (relative, with a floor of 1 for small values).
::testing::AssertionResult close(const attention::Tensor& a, const attention::Tensor& b, double rtol) {
  return all_close(a.data, b.data, rtol);
}

namespace {

json ablation_golden() {
  return json::parse(analysis_fixture::read_text(std::string(ATTENTION_FIXTURE_DIR) + "/ablation.json"));
}

Transformer model_of_case(const json& c) {
  const std::string source = c["source"];
  if (source.find('/') == std::string::npos) return analysis_fixture::load_checkpoint(source);
  return analysis_fixture::load_reference_model(source);
}

std::vector<int> flat_ids(const json& rows) {
  std::vector<int> out;
  for (const json& row : rows)
    for (int id : row.get<std::vector<int>>()) out.push_back(id);
  return out;
}

void expect_relative(double got, double want, double floor, const std::string& what) {
  EXPECT_NEAR(got, want, 1e-4 * std::max(floor, std::fabs(want))) << what;
}

TEST(AblationRanking, MatchesPyTorchHooksOnEveryModel) {
  const json golden = ablation_golden();
  ASSERT_GE(golden["cases"].size(), 10u);
  for (const json& c : golden["cases"]) {
    const std::string name = c["name"];
    SCOPED_TRACE(name);
    const Transformer model = model_of_case(c);
    const std::vector<int> ids = c["ids"].get<std::vector<int>>();
    const int seq = static_cast<int>(ids.size()), position = c["position"], vocab = model.spec().vocab_size;
    const std::vector<int> reference = flat_ids(c["meanOver"]);
    const int count = static_cast<int>(c["meanOver"].size());
    Result<AblationMeans> means = ablation_means(model, reference, count, seq);
    ASSERT_TRUE(means) << means.error();
    for (const std::string mode : {"zero", "mean"}) {
      SCOPED_TRACE(mode);
      const bool mean = mode == "mean";
      // Heads and an MLP ablated together in one forward pass: the logits at the position.
      ForwardInput in;
      in.batch = 1;
      in.seq = seq;
      in.ids = ids;
      ForwardOptions options;
      for (const json& h : c["combined"]["heads"]) options.ablated_heads.push_back(HeadRef{h[0], h[1]});
      for (int l : c["combined"]["mlps"].get<std::vector<int>>()) options.ablated_mlps.push_back(MlpRef{l});
      options.means = mean ? &means.value() : nullptr;
      for (Backend backend : {Backend::Fast, Backend::Reference}) {
        options.backend = backend;
        Result<ForwardOutput> out = model.forward(in, options);
        ASSERT_TRUE(out) << out.error();
        const std::vector<double> want = c[mode]["combinedLogits"].get<std::vector<double>>();
        ASSERT_EQ(want.size(), static_cast<std::size_t>(vocab));
        for (int v = 0; v < vocab; ++v)
          expect_relative(out.value().logits.data[static_cast<std::size_t>(position) * vocab + v], want[v], 1.0,
                          "combined logit " + std::to_string(v));
      }
      // Every head and MLP alone.
      AblationRankingOptions o;
      o.ids = ids;
      o.position = position;
      o.token = c["token"];
      o.against = c["against"];
      o.mean = mean;
      if (mean) {
        o.mean_over = reference;
        o.mean_count = count;
      }
      Result<AblationRanking> r = ablation_ranking(model, o);
      ASSERT_TRUE(r) << r.error();
      const json& want = c[mode]["ranking"];
      const AblationRanking& got = r.value();
      const double p0 = want["probability"], d0 = want["logitDiff"];
      expect_relative(got.probability, p0, 1e-6, "clean probability");
      expect_relative(got.logit_diff, d0, 1.0, "clean logit difference");
      const int layers = model.spec().layers, heads = model.spec().heads;
      ASSERT_EQ(got.head_probability_change.size(), static_cast<std::size_t>(layers * heads));
      ASSERT_EQ(got.mlp_logit_diff_change.size(), static_cast<std::size_t>(layers));
      for (int l = 0; l < layers; ++l) {
        for (int h = 0; h < heads; ++h) {
          const json& w = want["heads"][l][h];
          const std::size_t i = static_cast<std::size_t>(l) * heads + h;
          const std::string at = "head " + std::to_string(l) + "." + std::to_string(h);
          expect_relative(got.probability + got.head_probability_change[i], w["probability"], 1e-6, at);
          expect_relative(got.logit_diff + got.head_logit_diff_change[i], w["logitDiff"], 1.0, at);
        }
        const json& w = want["mlps"][l];
        expect_relative(got.probability + got.mlp_probability_change[l], w["probability"], 1e-6,
                        "mlp " + std::to_string(l));
        expect_relative(got.logit_diff + got.mlp_logit_diff_change[l], w["logitDiff"], 1.0, "mlp " + std::to_string(l));
      }
      // Ranked by the size of the logit difference's change, every part once.
      ASSERT_EQ(got.order.size(), static_cast<std::size_t>(layers * heads + layers));
      auto change = [&](int i) {
        return std::fabs(i < layers * heads ? got.head_logit_diff_change[i]
                                            : got.mlp_logit_diff_change[i - layers * heads]);
      };
      for (std::size_t k = 1; k < got.order.size(); ++k) EXPECT_GE(change(got.order[k - 1]), change(got.order[k]));
      std::vector<int> sorted = got.order;
      std::sort(sorted.begin(), sorted.end());
      for (std::size_t k = 0; k < sorted.size(); ++k) EXPECT_EQ(sorted[k], static_cast<int>(k));
    }
  }
}

// A small causal model of random weights for the properties below.
Transformer small_model() {
  ModelSpec s;
  s.vocab_size = 13;
  s.d_model = 12;
  s.heads = 3;
  s.layers = 2;
  s.ffn_dim = 16;
  s.max_seq = 8;
  s.causal = true;
  s.norm = NormPlacement::Pre;
  s.final_norm = true;
  Transformer m = Transformer::create(s).value();
  m.initialize_random(29);
  return m;
}

ForwardInput two_rows() {
  ForwardInput in;
  in.batch = 2;
  in.seq = 5;
  in.ids = {1, 4, 2, 9, 3, 7, 0, 5, 10, 8};
  return in;
}

TEST(Ablation, ZeroMlpEqualsAnMlpWithZeroWeights) {
  const Transformer model = small_model();
  Transformer zeroed = small_model();
  FeedForwardWeights& ffn = zeroed.encoder_layers()[1].ffn;
  for (float& v : ffn.linear2.weight.mutable_values()) v = 0.0f;
  for (float& v : ffn.linear2.bias.mutable_values()) v = 0.0f;
  ForwardOptions options;
  options.ablated_mlps = {MlpRef{1}};
  for (Backend backend : {Backend::Fast, Backend::Reference}) {
    options.backend = backend;
    ForwardOptions plain;
    plain.backend = backend;
    const Tensor ablated = model.forward(two_rows(), options).value().logits;
    const Tensor want = zeroed.forward(two_rows(), plain).value().logits;
    EXPECT_TRUE(close(ablated, want, 1e-5));
    EXPECT_FALSE(close(ablated, model.forward(two_rows(), plain).value().logits, 1e-3));
  }
}

TEST(Ablation, MeanOverTheSequenceItselfChangesNothing) {
  // The mean of one reference sequence is its own value at each position: mean-ablating every
  // head and MLP with meanOver = the input leaves the output as it was.
  const Transformer model = small_model();
  ForwardInput in = two_rows();
  in.batch = 1;
  in.ids.resize(5);
  Result<AblationMeans> means = ablation_means(model, in.ids, 1, 5);
  ASSERT_TRUE(means) << means.error();
  ForwardOptions options;
  options.means = &means.value();
  for (int l = 0; l < 2; ++l) {
    options.ablated_mlps.push_back(MlpRef{l});
    for (int h = 0; h < 3; ++h) options.ablated_heads.push_back(HeadRef{l, h});
  }
  const Tensor ablated = model.forward(in, options).value().logits;
  EXPECT_TRUE(close(ablated, model.forward(in).value().logits, 1e-5));
  // With zeros instead, it does change.
  options.means = nullptr;
  EXPECT_FALSE(close(model.forward(in, options).value().logits, model.forward(in).value().logits, 1e-3));
}

TEST(Ablation, RowsAblateOnlyTheirRow) {
  // The ranking's batching: an ablation in row 1 leaves row 0 as the clean run and gives row 1
  // what a batch of one with that ablation gives.
  const Transformer model = small_model();
  ForwardInput in = two_rows();
  std::copy_n(in.ids.begin(), 5, in.ids.begin() + 5);  // the same sequence twice
  ForwardOptions rows;
  rows.ablated_heads = {HeadRef{0, 2, 1}};
  rows.ablated_mlps = {MlpRef{1, 1}};
  const Tensor both = model.forward(in, rows).value().logits;  // (2, 5, V)
  ForwardInput one = in;
  one.batch = 1;
  one.ids.resize(5);
  ForwardOptions all_rows;
  all_rows.ablated_heads = {HeadRef{0, 2}};
  all_rows.ablated_mlps = {MlpRef{1}};
  const Tensor clean = model.forward(one).value().logits, ablated = model.forward(one, all_rows).value().logits;
  const std::size_t half = clean.size();
  for (std::size_t i = 0; i < half; ++i) {
    EXPECT_NEAR(both.data[i], clean.data[i], 1e-5f);
    EXPECT_NEAR(both.data[half + i], ablated.data[i], 1e-5f);
  }
  EXPECT_FALSE(close(clean, ablated, 1e-3));
}

TEST(Ablation, RecordedStagesShowTheAblatedValues) {
  const Transformer model = small_model();
  RecordFilter filter;
  filter.patterns = {"*.self_attn.context", "*.ffn.output"};
  ForwardOptions options;
  options.record = &filter;
  options.ablated_heads = {HeadRef{1, 0}};
  options.ablated_mlps = {MlpRef{0}};
  const Trace trace = model.forward(two_rows(), options).value().trace;
  const Stage* mlp = trace.find(0, "decoder.ffn.output");
  ASSERT_NE(mlp, nullptr);
  EXPECT_TRUE(std::all_of(mlp->tensor.data.begin(), mlp->tensor.data.end(), [](float v) { return v == 0.0f; }));
  const Stage* context = trace.find(1, "decoder.self_attn.context");  // (B, H, S, d_h)
  ASSERT_NE(context, nullptr);
  EXPECT_EQ(context->tensor.data[0], 0.0f);
  EXPECT_NE(trace.find(1, "decoder.ffn.output")->tensor.data[0], 0.0f);
}

void expect_error(const Status& s, const std::string& field, const std::string& code) {
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error_value().field, field) << s.error();
  EXPECT_EQ(s.error_value().code, code) << s.error();
}
template <class T>
void expect_error(const Result<T>& r, const std::string& field, const std::string& code) {
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error_value().field, field) << r.error();
  EXPECT_EQ(r.error_value().code, code) << r.error();
}

TEST(Ablation, BadArgumentsAreCodedErrorsAndChangeNothing) {
  const Transformer model = small_model();
  const Tensor before = model.forward(two_rows()).value().logits;
  ForwardOptions o;
  o.ablated_mlps = {MlpRef{2}};
  expect_error(model.forward(two_rows(), o), "ablateMlps", error_code::kOutOfRange);
  o.ablated_mlps = {MlpRef{0, 2}};
  expect_error(model.forward(two_rows(), o), "ablateMlps.row", error_code::kOutOfRange);
  o.ablated_mlps = {};
  o.ablated_heads = {HeadRef{0, 0, 5}};
  expect_error(model.forward(two_rows(), o), "ablate.row", error_code::kOutOfRange);
  o.ablated_heads = {HeadRef{0, 3}};
  expect_error(model.forward(two_rows(), o), "ablate.head", error_code::kOutOfRange);
  // Means of another length, or of another model.
  AblationMeans means = ablation_means(model, {1, 2, 3, 4}, 1, 4).value();
  o.ablated_heads = {HeadRef{0, 0}};
  o.means = &means;
  expect_error(model.forward(two_rows(), o), "meanOver", error_code::kShapeMismatch);
  means.seq = 5;
  expect_error(model.forward(two_rows(), o), "meanOver", error_code::kShapeMismatch);
  // ablation_means' own checks.
  expect_error(ablation_means(model, {}, 0, 5), "meanOver", error_code::kOutOfRange);
  expect_error(ablation_means(model, std::vector<int>(65 * 2, 1), 65, 2), "meanOver", error_code::kOutOfRange);
  expect_error(ablation_means(model, {1, 2, 3}, 1, 4), "meanOver", error_code::kShapeMismatch);
  expect_error(ablation_means(model, {1, 2, 99, 4}, 1, 4), "meanOver", error_code::kOutOfRange);
  // The ranking's.
  AblationRankingOptions r;
  r.ids = {1, 4, 2, 9};
  r.position = 4;
  expect_error(ablation_ranking(model, r), "position", error_code::kOutOfRange);
  r.position = 3;
  r.token = 13;
  expect_error(ablation_ranking(model, r), "token", error_code::kOutOfRange);
  r.token = 2;
  r.against = -2;
  expect_error(ablation_ranking(model, r), "against", error_code::kOutOfRange);
  r.against = -1;
  r.mean = true;
  expect_error(ablation_ranking(model, r), "meanOver", error_code::kInvalidArgument);
  r.mean_over = {1, 2, 3};
  r.mean_count = 1;
  expect_error(ablation_ranking(model, r), "meanOver", error_code::kShapeMismatch);
  r.mean = false;
  expect_error(ablation_ranking(model, r), "meanOver", error_code::kInvalidArgument);
  r.mean_over = {};
  r.mean_count = 0;
  r.ids = {1, 40};
  r.position = 1;
  expect_error(ablation_ranking(model, r), "ids", error_code::kOutOfRange);
  // An encoder–decoder.
  ModelSpec ed = model.spec();
  ed.encoder_layers = 1;
  ed.causal = false;
  const Transformer encdec = Transformer::create(ed).value();
  r.ids = {1, 2};
  r.position = 1;
  expect_error(ablation_ranking(encdec, r), "model", error_code::kInvalidArgument);
  expect_error(ablation_means(encdec, {1, 2}, 1, 2), "model", error_code::kInvalidArgument);
  EXPECT_TRUE(close(model.forward(two_rows()).value().logits, before, 0.0));
}

TEST(AblationRanking, OnTheSortModelTheContentHeadMattersMost) {
  // The shipped sort checkpoint (docs/training.md): x1..x8 | then the sorted symbols. Of its heads,
  // predicting an output symbol depends most on a last-layer one, the content head that finds the
  // next symbol (tests/web/checkpoints.test.ts finds a last-layer content head by its pattern).
  const Transformer model = analysis_fixture::load_checkpoint("sort");
  AblationRankingOptions o;
  o.ids = {7, 2, 9, 4, 3, 8, 5, 6, 10, 2, 3, 4};  // 8 symbols, the separator (10), then 2 3 4 sorted so far
  o.position = static_cast<int>(o.ids.size()) - 1;
  o.token = 5;
  Result<AblationRanking> r = ablation_ranking(model, o);
  ASSERT_TRUE(r) << r.error();
  const AblationRanking& got = r.value();
  EXPECT_GT(got.probability, 0.5f);
  // The MLPs come first (every prediction needs them); the first head ranked is in the last layer.
  const auto head = std::find_if(got.order.begin(), got.order.end(), [&](int i) { return i < got.layers * got.heads; });
  ASSERT_NE(head, got.order.end());
  EXPECT_EQ(*head / got.heads, got.layers - 1);
  EXPECT_LT(got.head_logit_diff_change[*head], -1.0f);
  // ... and it is a content head: at the position it looks most at the input symbol it predicts
  // (5, position 6), which no position pattern finds.
  ForwardInput in;
  in.batch = 1;
  in.seq = static_cast<int>(o.ids.size());
  in.ids = o.ids;
  RecordFilter weights;
  weights.patterns = {"*.self_attn.weights"};
  weights.layers = {got.layers - 1};
  ForwardOptions record;
  record.record = &weights;
  const Trace trace = model.forward(in, record).value().trace;
  const Stage* w = trace.find(got.layers - 1, "decoder.self_attn.weights");  // (1, H, S, S)
  ASSERT_NE(w, nullptr);
  const int s = in.seq;
  const float* row = w->tensor.ptr() + (static_cast<std::size_t>(*head % got.heads) * s + o.position) * s;
  EXPECT_EQ(std::max_element(row, row + s) - row, 6);
  EXPECT_GT(row[6], 0.5f);
}

}  // namespace
