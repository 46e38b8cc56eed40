// Activation patching and attribution patching (attention/analysis/patching.hpp) against
// PyTorch forward hooks and autograd (tests/reference/generate_patching_fixtures.py) on GPT-2,
// BERT, Llama, Gemma 3, a post-LN encoder and the trained induction model; the steps, the bad
// options, and the model left as it was.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "analysis_fixture.hpp"
#include "attention/analysis/patching.hpp"

namespace attention {
namespace {

using analysis_fixture::json;

json golden() {
  return json::parse(analysis_fixture::read_text(std::string(ATTENTION_FIXTURE_DIR) + "/patching.json"));
}

Transformer load(const std::string& source) {
  if (source.rfind("checkpoint/", 0) == 0) return analysis_fixture::load_checkpoint(source.substr(11));
  return analysis_fixture::load_reference_model(source);
}

PatchingOptions options_of(const json& c, PatchOver over, PatchMethod method) {
  PatchingOptions o;
  o.clean = c["clean"].get<std::vector<int>>();
  o.corrupted = c["corrupted"].get<std::vector<int>>();
  o.position = c["position"];
  o.good = c["good"];
  o.bad = c["bad"];
  o.over = over;
  o.method = method;
  return o;
}

void expect_near(double got, double want, const std::string& what) {
  EXPECT_NEAR(got, want, 1e-4 * std::max(1.0, std::fabs(want))) << what;
}

void expect_matches(const Patching& got, const json& want, const json& grid) {
  expect_near(got.clean_diff, want["cleanDiff"], "clean difference");
  expect_near(got.corrupted_diff, want["corruptedDiff"], "corrupted difference");
  ASSERT_EQ(got.rows, static_cast<int>(grid.size()));
  ASSERT_EQ(got.columns, static_cast<int>(grid[0].size()));
  ASSERT_EQ(got.recovered.size(), static_cast<std::size_t>(got.rows) * got.columns);
  for (int r = 0; r < got.rows; ++r)
    for (int c = 0; c < got.columns; ++c)
      expect_near(got.recovered[static_cast<std::size_t>(r) * got.columns + c], grid[r][c],
                  "(" + std::to_string(r) + ", " + std::to_string(c) + ")");
}

TEST(Patching, MatchesPyTorchHooksAndAutograd) {
  const json g = golden();
  ASSERT_EQ(g["cases"].size(), 6u);
  for (const json& c : g["cases"]) {
    const Transformer model = load(c["source"]);
    for (const auto& [over, over_name] : {std::pair{PatchOver::Resid, "resid"}, std::pair{PatchOver::Heads, "heads"}})
      for (const auto& [method, method_name] :
           {std::pair{PatchMethod::Exact, "exact"}, std::pair{PatchMethod::Attribution, "attribution"}}) {
        SCOPED_TRACE(c["name"].get<std::string>() + " " + over_name + " " + method_name);
        Result<Patching> got = activation_patching(model, options_of(c, over, method));
        ASSERT_TRUE(got) << got.error();
        expect_matches(got.value(), c, c[method_name][over_name]);
      }
  }
}

TEST(Patching, TheInductionHeadRecoversTheCopiedToken) {
  // The shipped induction model: patching layer 1's head 0 (its induction head) from the clean
  // repeat restores the copied token's whole margin; the other heads restore little.
  const json g = golden();
  const json& c = g["cases"][5];
  ASSERT_EQ(c["name"], "induction");
  const Transformer model = load(c["source"]);
  Result<Patching> heads = activation_patching(model, options_of(c, PatchOver::Heads, PatchMethod::Exact));
  ASSERT_TRUE(heads) << heads.error();
  const std::vector<float>& r = heads.value().recovered;  // (L = 2, H = 2)
  EXPECT_GT(r[2], 0.95f);
  for (int i : {0, 1, 3}) EXPECT_LT(std::fabs(r[static_cast<std::size_t>(i)]), 0.1f) << i;
  // Attribution patching points at the same head, as its largest entry.
  Result<Patching> estimate = activation_patching(model, options_of(c, PatchOver::Heads, PatchMethod::Attribution));
  ASSERT_TRUE(estimate) << estimate.error();
  const std::vector<float>& e = estimate.value().recovered;
  EXPECT_EQ(std::max_element(e.begin(), e.end()) - e.begin(), 2);
}

TEST(Patching, RunsInStepsAndLeavesTheModelAsItWas) {
  const json g = golden();
  const json& c = g["cases"][0];
  Transformer model = load(c["source"]);
  // A gradient left by training stays (attribution's backward sets it aside).
  Parameter* p = nullptr;
  model.visit_parameters([&](Parameter& q) {
    if (!p && q.name().find("in_proj_weight") != std::string::npos) p = &q;
  });
  ASSERT_NE(p, nullptr);
  p->grad.assign(p->size(), 0.25f);
  const std::vector<float> before = p->values();
  Result<PatchingRun> run = PatchingRun::start(model, options_of(c, PatchOver::Resid, PatchMethod::Exact));
  ASSERT_TRUE(run) << run.error();
  EXPECT_EQ(run.value().total_steps(), model.spec().layers);
  for (int step = 0; step < model.spec().layers; ++step) {
    EXPECT_FALSE(run.value().done());
    ASSERT_TRUE(run.value().step());
    EXPECT_EQ(run.value().done_steps(), step + 1);
  }
  EXPECT_TRUE(run.value().done());
  Result<Patching> attribution = activation_patching(model, options_of(c, PatchOver::Heads, PatchMethod::Attribution));
  ASSERT_TRUE(attribution) << attribution.error();
  EXPECT_EQ(p->values(), before);
  ASSERT_EQ(p->grad.size(), p->size());
  EXPECT_EQ(p->grad.front(), 0.25f);
  EXPECT_EQ(p->grad.back(), 0.25f);
  bool other_grads = false;
  model.visit_parameters([&](const Parameter& q) { other_grads |= &q != p && !q.grad.empty(); });
  EXPECT_FALSE(other_grads);
  // The clean difference is the engine's own forward's.
  ForwardInput in;
  in.ids = c["clean"].get<std::vector<int>>();
  in.batch = 1;
  in.seq = static_cast<int>(in.ids.size());
  Result<ForwardOutput> out = model.forward(in);
  ASSERT_TRUE(out);
  const float* row =
      out.value().logits.ptr() + static_cast<std::size_t>(c["position"].get<int>()) * model.spec().vocab_size;
  EXPECT_NEAR(attribution.value().clean_diff, row[c["good"].get<int>()] - row[c["bad"].get<int>()], 1e-4);
}

TEST(Patching, BadOptionsAreCodedErrors) {
  const json g = golden();
  const json& c = g["cases"][2];
  const Transformer model = load(c["source"]);
  const auto fails = [&](PatchingOptions o, const std::string& code, const std::string& field) {
    Result<Patching> r = activation_patching(model, o);
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error_value().code, code) << r.error();
    EXPECT_EQ(r.error_value().field, field) << r.error();
  };
  const PatchingOptions ok = options_of(c, PatchOver::Resid, PatchMethod::Exact);
  PatchingOptions o = ok;
  o.corrupted.pop_back();
  fails(o, error_code::kShapeMismatch, "corrupted");
  o = ok;
  o.position = static_cast<int>(o.clean.size());
  fails(o, error_code::kOutOfRange, "position");
  o = ok;
  o.good = model.spec().vocab_size;
  fails(o, error_code::kOutOfRange, "tokens");
  o = ok;
  o.bad = -1;
  fails(o, error_code::kOutOfRange, "tokens");
  o = ok;
  o.clean[0] = model.spec().vocab_size;
  fails(o, error_code::kOutOfRange, "clean");
  o = ok;
  o.corrupted = o.clean;  // the same prompt: nothing to recover
  fails(o, error_code::kInvalidArgument, "tokens");
  o = ok;
  o.clean.clear();
  o.corrupted.clear();
  fails(o, error_code::kOutOfRange, "clean");
  // Models it does not apply to: no output head (field "model"); 16-bit weights (read_only:
  // the layers run training's float32 arithmetic).
  const Transformer headless = load("models/post_gelutanh_nopos_causal");
  Result<Patching> refused = activation_patching(headless, ok);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error_value().field, "model") << refused.error();
  Transformer low_bit = load(c["source"]);
  low_bit.visit_parameters([](Parameter& p) {
    if (p.shape().size() == 2 && p.name().find("in_proj_weight") != std::string::npos) p.set_storage(Storage::BF16);
  });
  ASSERT_FALSE(low_bit.writable());
  refused = activation_patching(low_bit, ok);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error_value().code, error_code::kReadOnly) << refused.error();
  EXPECT_EQ(parse_patch_over("layers").error_value().field, "over");
  EXPECT_EQ(parse_patch_method("fast").error_value().field, "method");
  EXPECT_TRUE(parse_patch_over("heads"));
  EXPECT_TRUE(parse_patch_method("attribution"));
}

}  // namespace
}  // namespace attention
