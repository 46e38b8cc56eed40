// Agreement with PyTorch 1.13 autograd and torch.optim.AdamW on the fixtures of
// tests/reference/generate_training_fixtures.py: the loss, the gradient of every
// parameter (1e-4 relative to max(1, |expected|)), and the losses, gradient norms,
// learning rates and parameters of 10 AdamW steps (with clipping and schedules), for
// both backends.
#include <gtest/gtest.h>

#include "pytorch_training.hpp"

using namespace attention;
using namespace attention::testing;

namespace {

const std::string kDir = std::string(ATTENTION_FIXTURE_DIR) + "/training/";

const char* kCases[] = {
    "post_relu_sinusoidal_linear", "pre_gelu_learned_causal_tied", "post_gelutanh_nopos_causal_linear",
    "pre_relu_learned_eps_linear", "encdec_post_sinusoidal",       "encdec_pre_gelu_learned_tied"};

class PyTorchTraining : public ::testing::TestWithParam<std::tuple<const char*, Backend>> {};

}  // namespace

TEST_P(PyTorchTraining, LossAndEveryGradientMatchAutograd) {
  const char* name = std::get<0>(GetParam());
  const nlohmann::json f = read_fixture(kDir + name + ".json");
  Transformer model = load_fixture_model(f, kDir + name + ".safetensors");
  expect_loss_and_gradients(model, f, std::get<1>(GetParam()), name);
}

TEST_P(PyTorchTraining, TenAdamWStepsMatchTorchOptim) {
  const char* name = std::get<0>(GetParam());
  const nlohmann::json f = read_fixture(kDir + name + ".json");
  Transformer model = load_fixture_model(f, kDir + name + ".safetensors");
  expect_adamw_steps(model, f, std::get<1>(GetParam()), name);
}

INSTANTIATE_TEST_SUITE_P(Fixtures, PyTorchTraining,
                         ::testing::Combine(::testing::ValuesIn(kCases),
                                            ::testing::Values(Backend::Reference, Backend::Fast)));
