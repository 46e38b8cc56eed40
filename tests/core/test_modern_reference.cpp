// The modern block (RoPE and its scalings, ALiBi, grouped-query attention, headDim, sliding
// windows with a per-layer pattern, RMSNorm and Gemma's (1 + w), sandwich norms, gated MLPs,
// QK-norm, per-group biases, embedScale, queryPreAttnScalar) against PyTorch 1.13, on the
// fixtures of tests/reference/generate_modern_fixtures.py: Hugging Face's Llama, Llama 3
// (scaled RoPE, tied), Qwen 2, Qwen 3 and Gemma 3 (tests/reference/hf_modern.py, HF's
// semantics, weights mapped onto our names), an ALiBi model and a partial-rotary encoder with
// a window. For both backends: names, shapes and order; every layer's output and attention
// weights, the hidden states and logits (1e-5 relative to max(1, |expected|)); the loss and
// every gradient (1e-4); 10 AdamW steps (as test_training_pytorch.cpp).
#include <gtest/gtest.h>

#include "pytorch_training.hpp"

using namespace attention;
using namespace attention::testing;
using json = nlohmann::json;

namespace {

const std::string kDir = std::string(ATTENTION_FIXTURE_DIR) + "/modern/";

json fixture(const std::string& name) { return read_fixture(kDir + name + ".json"); }

Transformer load_model(const json& f, const std::string& name) {
  return load_fixture_model(f, kDir + name + ".safetensors");
}

const char* kCases[] = {"llama", "llama3_scaled_tied", "qwen2", "qwen3", "gemma3", "alibi", "partial_rotary_linear"};

class ModernPyTorch : public ::testing::TestWithParam<std::tuple<const char*, Backend>> {};

}  // namespace

TEST_P(ModernPyTorch, NamesShapesAndOrderAreTheFixtures) {
  const char* name = std::get<0>(GetParam());
  const json f = fixture(name);
  Transformer model = Transformer::create(from_json(model_spec_schema(), f["spec"]).value()).value();
  std::vector<json> ours;
  model.visit_parameters([&](const Parameter& p) { ours.push_back({{"name", p.name()}, {"shape", p.shape()}}); });
  EXPECT_EQ(json(ours), f["parameters"]) << name;
}

TEST_P(ModernPyTorch, EveryLayerTheHiddenStatesAndLogitsMatch) {
  const char* name = std::get<0>(GetParam());
  const json f = fixture(name);
  Transformer model = load_model(f, name);
  // A causal single stack records as the decoder, an encoder (no causal mask) as the encoder.
  const std::string stack = f["spec"]["causal"].get<bool>() ? kDecoderStack : kEncoderStack;
  RecordFilter filter;
  filter.patterns = {stack + ".self_attn.weights", stack + ".output"};
  ForwardOptions options;
  options.backend = std::get<1>(GetParam());
  options.record = &filter;
  Result<ForwardOutput> out = model.forward(fixture_batch(f).input, options);
  ASSERT_TRUE(out.ok()) << out.error();

  const int b = f["batch"], s = f["seq"], heads = f["spec"]["heads"], layers = f["spec"]["layers"];
  ASSERT_EQ(f["weights"].size(), static_cast<std::size_t>(layers));
  for (int l = 0; l < layers; ++l) {
    SCOPED_TRACE(std::string(name) + " layer " + std::to_string(l));
    const Stage* weights = out.value().trace.find(l, stack + ".self_attn.weights");
    ASSERT_NE(weights, nullptr);
    EXPECT_EQ(weights->tensor.shape, (std::vector<int>{b, heads, s, s}));
    EXPECT_TRUE(all_close(weights->tensor.data, f["weights"][l].get<std::vector<double>>(), 1e-5));
    const Stage* output = out.value().trace.find(l, stack + ".output");
    ASSERT_NE(output, nullptr);
    EXPECT_TRUE(all_close(output->tensor.data, f["layer_outputs"][l].get<std::vector<double>>(), 1e-5));
  }
  EXPECT_EQ(out.value().hidden.shape, (std::vector<int>{b, s, f["spec"]["dModel"].get<int>()}));
  EXPECT_TRUE(all_close(out.value().hidden.data, f["hidden"].get<std::vector<double>>(), 1e-5)) << name;
  EXPECT_EQ(out.value().logits.shape, (std::vector<int>{b, s, f["spec"]["vocabSize"].get<int>()}));
  EXPECT_TRUE(all_close(out.value().logits.data, f["logits"].get<std::vector<double>>(), 1e-5)) << name;
}

TEST_P(ModernPyTorch, LossAndEveryGradientMatchAutograd) {
  const char* name = std::get<0>(GetParam());
  const json f = fixture(name);
  Transformer model = load_model(f, name);
  expect_loss_and_gradients(model, f, std::get<1>(GetParam()), name);
}

TEST_P(ModernPyTorch, TenAdamWStepsMatchTorchOptim) {
  const char* name = std::get<0>(GetParam());
  const json f = fixture(name);
  Transformer model = load_model(f, name);
  expect_adamw_steps(model, f, std::get<1>(GetParam()), name);
}

INSTANTIATE_TEST_SUITE_P(modern, ModernPyTorch,
                         ::testing::Combine(::testing::ValuesIn(kCases),
                                            ::testing::Values(Backend::Reference, Backend::Fast)),
                         [](const ::testing::TestParamInfo<std::tuple<const char*, Backend>>& info) {
                           return std::string(std::get<0>(info.param)) +
                                  (std::get<1>(info.param) == Backend::Reference ? "_Reference" : "_Fast");
                         });
