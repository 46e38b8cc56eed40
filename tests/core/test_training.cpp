// The whole model's gradients: against finite differences for every kind of spec,
// the ablations included (residual off, scaling off, an activation after attention, no
// LayerNorm) and the modern block (RoPE and its scalings, ALiBi, grouped K/V, windows,
// RMSNorms, sandwich norms, gated FFNs, q/k norms), and the fast backend against the
// reference; the training forward's loss against the inference forward's.
#include <gtest/gtest.h>

#include <cmath>

#include "attention/grad_ops.hpp"
#include "attention/random.hpp"
#include "attention/train.hpp"
#include "test_util.hpp"

using namespace attention;

namespace {

struct SpecCase {
  const char* name;
  ModelSpec spec;
};

ModelSpec small(std::function<void(ModelSpec&)> change) {
  ModelSpec s;
  s.vocab_size = 7;
  s.d_model = 6;
  s.heads = 2;
  s.layers = 2;
  s.ffn_dim = 10;
  s.max_seq = 8;
  s.activation = Activation::GELU;  // smooth, so finite differences are clean
  change(s);
  return s;
}

std::vector<SpecCase> spec_cases() {
  return {
      {"post_sinusoidal_linear", small([](ModelSpec&) {})},
      {"pre_learned_causal_tied_final", small([](ModelSpec& s) {
         s.norm = NormPlacement::Pre;
         s.positions = Positions::Learned;
         s.causal = true;
         s.head = OutputHead::Tied;
         s.final_norm = true;
       })},
      {"gelu_tanh_no_positions", small([](ModelSpec& s) {
         s.activation = Activation::GELUTanh;
         s.positions = Positions::None;
       })},
      {"relu", small([](ModelSpec& s) { s.activation = Activation::ReLU; })},
      {"no_residual", small([](ModelSpec& s) { s.residual = false; })},
      {"no_residual_pre", small([](ModelSpec& s) {
         s.residual = false;
         s.norm = NormPlacement::Pre;
       })},
      {"unscaled", small([](ModelSpec& s) { s.scale = false; })},
      {"encoder_decoder", small([](ModelSpec& s) {
         s.encoder_layers = 2;
         s.causal = true;
         s.final_norm = true;
         s.positions = Positions::Learned;
       })},
      {"encoder_decoder_pre_tied", small([](ModelSpec& s) {
         s.encoder_layers = 1;
         s.norm = NormPlacement::Pre;
         s.head = OutputHead::Tied;
       })},
      // ReLU's kink: a random direction through every element of a tensor may cross it
      // (then the difference quotient is not the derivative; pre-LN does here), so the
      // smooth activations carry the harder specs.
      {"attn_relu", small([](ModelSpec& s) { s.attn_activation = Activation::ReLU; })},
      {"attn_gelu_pre_no_residual", small([](ModelSpec& s) {
         s.attn_activation = Activation::GELU;
         s.norm = NormPlacement::Pre;
         s.residual = false;
       })},
      {"attn_gelu_tanh_encoder_decoder", small([](ModelSpec& s) {  // cross-attention too
         s.attn_activation = Activation::GELUTanh;
         s.encoder_layers = 1;
         s.causal = true;
       })},
      {"no_layer_norm", small([](ModelSpec& s) { s.layer_norm = false; })},
      {"no_layer_norm_pre_final_tied", small([](ModelSpec& s) {  // finalNorm without LayerNorm: nothing
         s.layer_norm = false;
         s.norm = NormPlacement::Pre;
         s.final_norm = true;
         s.head = OutputHead::Tied;
       })},
      {"no_layer_norm_encoder_decoder_attn_gelu", small([](ModelSpec& s) {
         s.layer_norm = false;
         s.encoder_layers = 1;
         s.final_norm = true;
         s.attn_activation = Activation::GELU;
       })},
      // The modern block (spec.hpp), in odd shapes: H d_h != E, groups, partial rotary.
      {"rope_gqa_rmsnorm_swiglu_no_biases", small([](ModelSpec& s) {
         s.causal = true;
         s.positions = Positions::Rope;
         s.heads = 4;
         s.kv_heads = 2;
         s.head_dim_setting = 4;
         s.norm = NormPlacement::Pre;
         s.norm_type = NormType::RmsNorm;
         s.final_norm = true;
         s.ffn = FfnKind::Gated;
         s.activation = Activation::SiLU;
         s.qkv_bias = s.out_bias = s.mlp_bias = s.head_bias = false;
         s.head = OutputHead::Tied;
       })},
      {"rope_partial_llama3_mqa_qkv_bias", small([](ModelSpec& s) {
         s.causal = true;
         s.positions = Positions::Rope;
         s.head_dim_setting = 4;
         s.rope_fraction = 0.5;
         s.kv_heads = 1;
         s.rope_theta = 100;
         s.rope_scaling = RopeScaling::Llama3;
         s.rope_factor = 4;
         s.rope_original_context = 4;
         s.norm = NormPlacement::Pre;
         s.norm_type = NormType::RmsNorm;
         s.out_bias = false;
       })},
      {"rope_linear_qk_norm_head_dim", small([](ModelSpec& s) {  // Qwen 3's q/k norms, H d_h = 8 != E = 6
         s.causal = true;
         s.positions = Positions::Rope;
         s.rope_scaling = RopeScaling::Linear;
         s.rope_factor = 2;
         s.head_dim_setting = 4;
         s.kv_heads = 1;
         s.qk_norm = true;
         s.norm = NormPlacement::Pre;
         s.norm_type = NormType::RmsNorm;
         s.ffn = FfnKind::Gated;
         s.activation = Activation::SiLU;
       })},
      {"alibi_three_heads_window", small([](ModelSpec& s) {
         s.causal = true;
         s.positions = Positions::Alibi;
         s.heads = 3;
         s.window = 2;
         s.norm = NormPlacement::Pre;
       })},
      {"gemma_sandwich_offset_geglu_local_global", small([](ModelSpec& s) {
         s.causal = true;
         s.positions = Positions::Rope;
         s.rope_theta = 1000;
         s.rope_local_theta = 50;
         s.window = 2;
         s.window_pattern = 2;
         s.heads = 2;
         s.kv_heads = 1;
         s.head_dim_setting = 4;
         s.norm = NormPlacement::Sandwich;
         s.norm_type = NormType::RmsNormOffset;
         s.final_norm = true;
         s.qk_norm = true;
         s.ffn = FfnKind::Gated;
         s.activation = Activation::GELUTanh;
         s.embed_scale = true;
         s.query_pre_attn_scalar = 5;
         s.qkv_bias = s.out_bias = s.mlp_bias = s.head_bias = false;
         s.head = OutputHead::Tied;
       })},
      {"encoder_rope_symmetric_window_rmsnorm", small([](ModelSpec& s) {  // not causal: |i - j| < window
         s.positions = Positions::Rope;
         s.head_dim_setting = 4;  // rotary pairs need an even d_h (E / H = 3 is refused)
         s.window = 2;
         s.norm_type = NormType::RmsNorm;
       })},
      {"encoder_decoder_gqa_sandwich_gated", small([](ModelSpec& s) {  // cross-attention grouped too
         s.encoder_layers = 1;
         s.heads = 2;
         s.kv_heads = 1;
         s.head_dim_setting = 4;
         s.norm = NormPlacement::Sandwich;
         s.norm_type = NormType::RmsNorm;
         s.final_norm = true;
         s.ffn = FfnKind::Gated;
         s.activation = Activation::SiLU;
       })},
  };
}

TrainingBatch batch_for(const ModelSpec& s) {
  TrainingBatch b;
  b.input.batch = 2;
  b.input.seq = 5;
  b.input.lengths = {5, 3};
  SplitMix64 rng(77);
  for (int i = 0; i < 10; ++i) b.input.ids.push_back(static_cast<int>(rng.next() % s.vocab_size));
  for (int i = 0; i < 10; ++i) b.targets.push_back(static_cast<int>(rng.next() % s.vocab_size));
  b.targets[8] = b.targets[9] = -100;  // padding of sequence 1
  b.targets[2] = -100;
  if (s.encoder_decoder()) {
    b.input.source_seq = 4;
    b.input.source_lengths = {4, 2};
    for (int i = 0; i < 8; ++i) b.input.source_ids.push_back(static_cast<int>(rng.next() % s.vocab_size));
  }
  return b;
}

class Training : public ::testing::TestWithParam<SpecCase> {};

}  // namespace

// For each parameter tensor p and a random direction d: (L(p + e d) - L(p - e d)) / 2e = grad . d.
TEST_P(Training, EveryParameterGradientMatchesFiniteDifferences) {
  const SpecCase& c = GetParam();
  Transformer model = Transformer::create(c.spec).value();
  model.initialize_random(3);
  double floats = 0;  // the spec's parameter count (the size limit's) is what the model holds
  model.visit_parameters([&](const Parameter& p) { floats += static_cast<double>(p.size()); });
  EXPECT_EQ(floats, parameter_floats(c.spec)) << c.name;
  const TrainingBatch batch = batch_for(c.spec);
  Result<LossResult> r = loss_and_gradients(model, batch, Backend::Reference);
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.value().counted, 7);
  std::vector<std::pair<std::string, std::vector<float>>> grads;
  model.visit_parameters([&](const Parameter& p) { grads.emplace_back(p.name(), p.grad); });

  SplitMix64 rng(5);
  std::size_t index = 0;
  model.visit_parameters([&](Parameter& p) {
    const std::vector<float>& g = grads[index++].second;
    std::vector<float> direction(p.size());
    for (float& v : direction) v = rng.symmetric_unit();
    double analytic = 0.0;
    for (std::size_t i = 0; i < p.size(); ++i) analytic += static_cast<double>(g[i]) * direction[i];
    const std::vector<float> original = p.values();
    const float eps = 1e-3f;
    const auto loss_at = [&](float t) {
      std::vector<float>& v = p.mutable_values();
      for (std::size_t i = 0; i < v.size(); ++i) v[i] = original[i] + t * direction[i];
      return loss_only(model, batch, Backend::Reference).value().loss;
    };
    const double numeric = (loss_at(eps) - loss_at(-eps)) / (2.0 * eps);
    p = original;
    EXPECT_NEAR(analytic, numeric, 2e-2 * std::fabs(numeric) + 2e-3) << c.name << ": " << p.name();
  });
}

TEST_P(Training, TheFastBackendGivesTheReferenceGradients) {
  const SpecCase& c = GetParam();
  Transformer model = Transformer::create(c.spec).value();
  model.initialize_random(4);
  const TrainingBatch batch = batch_for(c.spec);
  const double reference_loss = loss_and_gradients(model, batch, Backend::Reference).value().loss;
  std::vector<std::vector<float>> reference;
  model.visit_parameters([&](const Parameter& p) { reference.push_back(p.grad); });
  const double fast_loss = loss_and_gradients(model, batch, Backend::Fast).value().loss;
  EXPECT_NEAR(fast_loss, reference_loss, 1e-5 * std::fabs(reference_loss));
  std::size_t i = 0;
  model.visit_parameters([&](const Parameter& p) {
    EXPECT_TRUE(attention::testing::all_close(p.grad, reference[i++], 1e-4)) << c.name << ": " << p.name();
  });
  // The training forward computes the same logits as the inference forward: the loss of
  // the inference logits is the training loss.
  Result<ForwardOutput> out = model.forward(batch.input);
  ASSERT_TRUE(out.ok()) << out.error();
  std::vector<float> dlogits(out.value().logits.size());
  int counted = 0;
  const double inference_loss =
      grad::cross_entropy(out.value().logits.ptr(), batch.targets.data(), batch.input.batch * batch.input.seq,
                          c.spec.vocab_size, dlogits.data(), &counted);
  EXPECT_EQ(counted, 7);
  EXPECT_NEAR(inference_loss, fast_loss, 1e-5 * std::fabs(fast_loss)) << c.name;
}

INSTANTIATE_TEST_SUITE_P(Specs, Training, ::testing::ValuesIn(spec_cases()),
                         [](const ::testing::TestParamInfo<SpecCase>& info) { return std::string(info.param.name); });

TEST(TrainingInput, BadTargetsAndHeadlessModelsAreErrors) {
  ModelSpec s = small([](ModelSpec&) {});
  Transformer model = Transformer::create(s).value();
  TrainingBatch batch = batch_for(s);
  batch.targets[0] = 7;
  Result<LossResult> r = loss_and_gradients(model, batch);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error_value().field, "targets");
  EXPECT_EQ(r.error_value().code, error_code::kOutOfRange);
  batch.targets.pop_back();
  EXPECT_EQ(loss_and_gradients(model, batch).error_value().code, error_code::kShapeMismatch);
  s.head = OutputHead::None;
  Transformer headless = Transformer::create(s).value();
  EXPECT_EQ(loss_and_gradients(headless, batch_for(s)).error_value().field, "head");
}
