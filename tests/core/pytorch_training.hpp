#pragma once
// Reading the PyTorch training fixtures and checking the engine against them, shared by
// test_training_pytorch.cpp (generate_training_fixtures.py) and test_modern_reference.cpp
// (generate_modern_fixtures.py), which write the same keys: spec, batch, seq, ids, lengths
// (source_* for encoder–decoders), targets, loss, gradients, optimizer, steps, final and
// noiseGradients.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "attention/optimizer.hpp"
#include "attention/train.hpp"
#include "attention/weights_io.hpp"
#include "test_util.hpp"

namespace attention::testing {

inline nlohmann::json read_fixture(const std::string& path) {
  std::ifstream in(path);
  EXPECT_TRUE(in.good()) << "missing fixture " << path;
  return nlohmann::json::parse(in);
}

// A model of the fixture's spec with the weights of the .safetensors file at `path`.
inline Transformer load_fixture_model(const nlohmann::json& f, const std::string& path) {
  Result<ModelSpec> spec = from_json(model_spec_schema(), f["spec"]);
  EXPECT_TRUE(spec.ok()) << spec.error();
  Transformer model = Transformer::create(spec.value()).value();
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.good()) << "missing weights " << path;
  const std::vector<std::uint8_t> bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  const Status loaded = load_safetensors(model, bytes.data(), bytes.size());
  EXPECT_TRUE(loaded.ok()) << loaded.error();
  return model;
}

inline TrainingBatch fixture_batch(const nlohmann::json& f) {
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
  if (f.contains("targets")) b.targets = f["targets"].get<std::vector<int>>();
  return b;
}

inline OptimizerOptions fixture_optimizer(const nlohmann::json& f) {
  const nlohmann::json& o = f["optimizer"];
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

// The loss (1e-5) and every parameter's gradient (1e-4 relative to max(1, |expected|)).
inline void expect_loss_and_gradients(Transformer& model, const nlohmann::json& f, Backend backend,
                                      const std::string& name) {
  Result<LossResult> r = loss_and_gradients(model, fixture_batch(f), backend);
  ASSERT_TRUE(r.ok()) << r.error();
  const double loss = f["loss"];
  EXPECT_NEAR(r.value().loss, loss, 1e-5 * std::max(1.0, std::fabs(loss))) << name;
  std::size_t seen = 0;
  model.visit_parameters([&](const Parameter& p) {
    ASSERT_TRUE(f["gradients"].contains(p.name())) << p.name();
    EXPECT_TRUE(all_close(p.grad, f["gradients"][p.name()].get<std::vector<double>>(), 1e-4))
        << name << ": " << p.name();
    ++seen;
  });
  EXPECT_EQ(seen, f["gradients"].size());
}

// The fixture's AdamW steps on its one batch: each step's loss, gradient norm and learning
// rate, then every parameter (1e-4). Entries whose gradient stayed at rounding-noise level in
// PyTorch (listed by the generator: unused embedding rows, key biases nothing makes matter,
// dead ReLU units) are only bounded by the steps' total lr: Adam turns noise into steps of up to lr.
inline void expect_adamw_steps(Transformer& model, const nlohmann::json& f, Backend backend, const std::string& name) {
  const TrainingBatch batch = fixture_batch(f);
  AdamW optimizer(fixture_optimizer(f));
  for (const nlohmann::json& expected : f["steps"]) {
    Result<LossResult> r = loss_and_gradients(model, batch, backend);
    ASSERT_TRUE(r.ok()) << r.error();
    const double loss = expected["loss"];
    EXPECT_NEAR(r.value().loss, loss, 1e-4 * std::max(1.0, std::fabs(loss))) << name << " step " << optimizer.steps();
    const AdamW::StepInfo info = optimizer.step(model);
    EXPECT_NEAR(info.grad_norm, expected["gradNorm"].get<double>(),
                1e-4 * std::max(1.0, expected["gradNorm"].get<double>()));
    EXPECT_NEAR(info.lr, expected["lr"].get<double>(), 1e-12);
  }
  double lr_total = 0.0;
  for (const nlohmann::json& step : f["steps"]) lr_total += step["lr"].get<double>();
  model.visit_parameters([&](const Parameter& p) {
    const std::vector<double> expected = f["final"][p.name()].get<std::vector<double>>();
    ASSERT_EQ(expected.size(), p.values().size()) << p.name();
    std::vector<double> tolerance(expected.size(), 0.0);
    for (std::size_t i = 0; i < expected.size(); ++i) tolerance[i] = 1e-4 * std::max(1.0, std::fabs(expected[i]));
    if (f["noiseGradients"].contains(p.name()))
      for (int i : f["noiseGradients"][p.name()]) tolerance[static_cast<std::size_t>(i)] = lr_total + 1e-4;
    for (std::size_t i = 0; i < expected.size(); ++i)
      EXPECT_NEAR(p[i], expected[i], tolerance[i]) << name << ": " << p.name() << "[" << i << "]";
  });
}

}  // namespace attention::testing
