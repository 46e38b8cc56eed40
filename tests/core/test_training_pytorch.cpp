// Agreement with PyTorch 1.13 autograd and torch.optim.AdamW on the fixtures of
// tests/reference/generate_training_fixtures.py: the loss, the gradient of every
// parameter (1e-4 relative to max(1, |expected|)), and the losses, gradient norms,
// learning rates and parameters of 10 AdamW steps (with clipping and schedules), for
// both backends.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>

#include "attention/optimizer.hpp"
#include "attention/train.hpp"
#include "attention/weights_io.hpp"
#include "test_util.hpp"

using namespace attention;
using attention::testing::all_close;
using json = nlohmann::json;

namespace {

const std::string kDir = std::string(ATTENTION_FIXTURE_DIR) + "/training/";

json fixture(const std::string& name) {
  std::ifstream in(kDir + name + ".json");
  EXPECT_TRUE(in.good()) << "missing fixture " << name;
  return json::parse(in);
}

Transformer load_model(const json& f, const std::string& name) {
  Transformer model = Transformer::create(from_json(model_spec_schema(), f["spec"]).value()).value();
  std::ifstream in(kDir + name + ".safetensors", std::ios::binary);
  const std::vector<std::uint8_t> bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  const Status loaded = load_safetensors(model, bytes.data(), bytes.size());
  EXPECT_TRUE(loaded.ok()) << loaded.error();
  return model;
}

TrainingBatch batch_of(const json& f) {
  TrainingBatch b;
  b.input.batch = f["batch"];
  b.input.seq = f["seq"];
  b.input.ids = f["ids"].get<std::vector<int>>();
  b.input.lengths = f["lengths"].get<std::vector<int>>();
  if (f.contains("source_ids")) {
    b.input.source_seq = f["source_seq"];
    b.input.source_ids = f["source_ids"].get<std::vector<int>>();
    b.input.source_lengths = f["source_lengths"].get<std::vector<int>>();
  }
  b.targets = f["targets"].get<std::vector<int>>();
  return b;
}

OptimizerOptions optimizer_of(const json& f) {
  const json& o = f["optimizer"];
  OptimizerOptions options;
  options.lr = o["lr"];
  options.beta1 = o["betas"][0];
  options.beta2 = o["betas"][1];
  options.eps = o["eps"];
  options.weight_decay = o["weightDecay"];
  options.clip_norm = o["clipNorm"].is_null() ? 0.0 : o["clipNorm"].get<double>();
  if (!o["schedule"].is_null()) {
    options.warmup = o["schedule"]["warmup"];
    options.total_steps = o["schedule"]["total"];
    options.schedule = Schedule::Cosine;
  }
  return options;
}

const char* kCases[] = {
    "post_relu_sinusoidal_linear", "pre_gelu_learned_causal_tied", "post_gelutanh_nopos_causal_linear",
    "pre_relu_learned_eps_linear", "encdec_post_sinusoidal",       "encdec_pre_gelu_learned_tied"};

class PyTorchTraining : public ::testing::TestWithParam<std::tuple<const char*, Backend>> {};

}  // namespace

TEST_P(PyTorchTraining, LossAndEveryGradientMatchAutograd) {
  const char* name = std::get<0>(GetParam());
  const Backend backend = std::get<1>(GetParam());
  const json f = fixture(name);
  Transformer model = load_model(f, name);
  Result<LossResult> r = loss_and_gradients(model, batch_of(f), backend);
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_NEAR(r.value().loss, f["loss"].get<double>(), 1e-5 * std::max(1.0, std::fabs(f["loss"].get<double>())));
  std::size_t seen = 0;
  model.visit_parameters([&](const Parameter& p) {
    ASSERT_TRUE(f["gradients"].contains(p.name())) << p.name();
    EXPECT_TRUE(all_close(p.grad, f["gradients"][p.name()].get<std::vector<double>>(), 1e-4))
        << name << ": " << p.name();
    ++seen;
  });
  EXPECT_EQ(seen, f["gradients"].size());
}

TEST_P(PyTorchTraining, TenAdamWStepsMatchTorchOptim) {
  const char* name = std::get<0>(GetParam());
  const Backend backend = std::get<1>(GetParam());
  const json f = fixture(name);
  Transformer model = load_model(f, name);
  const TrainingBatch batch = batch_of(f);
  AdamW optimizer(optimizer_of(f));
  for (const json& expected : f["steps"]) {
    Result<LossResult> r = loss_and_gradients(model, batch, backend);
    ASSERT_TRUE(r.ok()) << r.error();
    const double loss = expected["loss"];
    EXPECT_NEAR(r.value().loss, loss, 1e-4 * std::max(1.0, std::fabs(loss))) << name << " step " << optimizer.steps();
    const AdamW::StepInfo info = optimizer.step(model);
    EXPECT_NEAR(info.grad_norm, expected["gradNorm"].get<double>(),
                1e-4 * std::max(1.0, expected["gradNorm"].get<double>()));
    EXPECT_NEAR(info.lr, expected["lr"].get<double>(), 1e-12);
  }
  // Entries whose gradient stayed at rounding-noise level in PyTorch (listed by the
  // generator): Adam turns noise into steps of up to lr, so there only the bound holds.
  double lr_total = 0.0;
  for (const json& step : f["steps"]) lr_total += step["lr"].get<double>();
  model.visit_parameters([&](const Parameter& p) {
    const std::vector<double> expected = f["final"][p.name()].get<std::vector<double>>();
    std::vector<double> tolerance(expected.size(), 0.0);
    for (std::size_t i = 0; i < expected.size(); ++i) tolerance[i] = 1e-4 * std::max(1.0, std::fabs(expected[i]));
    if (f["noiseGradients"].contains(p.name()))
      for (int i : f["noiseGradients"][p.name()]) tolerance[static_cast<std::size_t>(i)] = lr_total + 1e-4;
    for (std::size_t i = 0; i < expected.size(); ++i)
      EXPECT_NEAR(p[i], expected[i], tolerance[i]) << name << ": " << p.name() << "[" << i << "]";
  });
}

INSTANTIATE_TEST_SUITE_P(Fixtures, PyTorchTraining,
                         ::testing::Combine(::testing::ValuesIn(kCases),
                                            ::testing::Values(Backend::Reference, Backend::Fast)));
