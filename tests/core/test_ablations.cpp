// The forward pass under the ModelSpec ablations PyTorch has no twin for: an
// activation after attention (attnActivation) and no LayerNorm (layerNorm false). Each
// against the spec without it, and the fast backend against the reference.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>

#include "attention/transformer.hpp"
#include "attention/weights_io.hpp"
#include "test_util.hpp"

using namespace attention;
using attention::testing::all_close;

namespace {

ModelSpec small(const std::function<void(ModelSpec&)>& change = [](ModelSpec&) {}) {
  ModelSpec s;
  s.vocab_size = 11;
  s.d_model = 8;
  s.heads = 2;
  s.layers = 2;
  s.ffn_dim = 12;
  s.max_seq = 8;
  change(s);
  return s;
}

Transformer model_of(const ModelSpec& spec, std::uint64_t seed = 5) {
  Transformer m = Transformer::create(spec).value();
  m.initialize_random(seed);
  return m;
}

// B = 2, S = 5, the second sequence 3 long; a 4-token source for encoder–decoders.
ForwardInput input_for(const ModelSpec& s) {
  ForwardInput in;
  in.batch = 2;
  in.seq = 5;
  in.ids = {1, 4, 2, 9, 3, 7, 0, 5, 0, 0};
  in.lengths = {5, 3};
  if (s.encoder_decoder()) {
    in.source_seq = 4;
    in.source_ids = {2, 8, 6, 1, 3, 3, 0, 0};
    in.source_lengths = {4, 2};
  }
  return in;
}

ForwardOutput run(const Transformer& m, const ForwardInput& in, const RecordFilter* record = nullptr,
                  Backend backend = Backend::Fast) {
  ForwardOptions options;
  options.record = record;
  options.backend = backend;
  Result<ForwardOutput> out = m.forward(in, options);
  EXPECT_TRUE(out.ok()) << out.error();
  return std::move(out.value());
}

const Tensor& stage(const ForwardOutput& out, int layer, const std::string& name) {
  const Stage* s = out.trace.find(layer, name);
  EXPECT_NE(s, nullptr) << name << " at layer " << layer;
  static const Tensor none;
  return s ? s->tensor : none;
}

}  // namespace

TEST(AttnActivation, ReluIsAppliedToEachAttentionOutputAndChangesTheModel) {
  const ModelSpec plain = small();
  const ModelSpec relu = small([](ModelSpec& s) { s.attn_activation = Activation::ReLU; });
  const Transformer a = model_of(plain), b = model_of(relu);  // the same weights: same seed, same names
  RecordFilter all;
  const ForwardOutput without = run(a, input_for(plain), &all);
  const ForwardOutput with = run(b, input_for(relu), &all);
  EXPECT_EQ(without.trace.find(0, "encoder.self_attn.activated"), nullptr);  // 'none' records nothing new
  for (int layer : {0, 1}) {
    const Tensor& output = stage(with, layer, "encoder.self_attn.output");
    const Tensor& activated = stage(with, layer, "encoder.self_attn.activated");
    ASSERT_EQ(activated.shape, (std::vector<int>{2, 5, 8}));
    EXPECT_EQ(activated.axes, output.axes);
    int negative = 0, zeroed = 0;
    for (std::size_t i = 0; i < output.size(); ++i) {
      EXPECT_EQ(activated.data[i], output.data[i] > 0 ? output.data[i] : 0.0f) << i;
      EXPECT_GE(activated.data[i], 0.0f);
      negative += output.data[i] < 0;
      zeroed += activated.data[i] == 0.0f;
    }
    EXPECT_GT(negative, 10) << "the test needs negative attention outputs to mean anything";
    EXPECT_EQ(zeroed, negative);
    // The residual stream adds the activated output, not the projection (post-LN: x + act(attn(x))).
    const Tensor& input = layer == 0 ? stage(with, -1, "encoder.input") : stage(with, 0, "encoder.output");
    const Tensor& residual = stage(with, layer, "encoder.residual1");
    for (std::size_t i = 0; i < residual.size(); ++i) EXPECT_EQ(residual.data[i], input.data[i] + activated.data[i]);
  }
  // Layer 0's attention output is the same in both (same input, same weights); all after it differs.
  EXPECT_EQ(stage(with, 0, "encoder.self_attn.output").data, stage(without, 0, "encoder.self_attn.output").data);
  EXPECT_FALSE(all_close(with.hidden.data, without.hidden.data, 1e-3));
  EXPECT_FALSE(all_close(with.logits.data, without.logits.data, 1e-3));
}

TEST(AttnActivation, NoneIsBitForBitTheModelWithoutTheSetting) {
  // The default spec's forward, recorded and not, on both backends: nothing changed.
  const ModelSpec s = small();
  ASSERT_EQ(s.attn_activation, Activation::None);
  const Transformer m = model_of(s);
  RecordFilter all;
  for (Backend backend : {Backend::Reference, Backend::Fast}) {
    const ForwardOutput traced = run(m, input_for(s), &all, backend);
    const ForwardOutput plain = run(m, input_for(s), nullptr, backend);
    EXPECT_EQ(traced.hidden.data, plain.hidden.data);
    // post-LN without activation: residual1 = input + attention output exactly.
    const Tensor& input = stage(traced, -1, "encoder.input");
    const Tensor& out = stage(traced, 0, "encoder.self_attn.output");
    const Tensor& residual = stage(traced, 0, "encoder.residual1");
    for (std::size_t i = 0; i < residual.size(); ++i) EXPECT_EQ(residual.data[i], input.data[i] + out.data[i]);
  }
}

TEST(AttnActivation, AppliesToCrossAttentionAndTheFastBackendMatchesTheReference) {
  for (Activation act : {Activation::ReLU, Activation::GELU, Activation::GELUTanh}) {
    const ModelSpec s = small([&](ModelSpec& m) {
      m.attn_activation = act;
      m.encoder_layers = 1;
      m.causal = true;
      m.norm = NormPlacement::Pre;
    });
    const Transformer m = model_of(s);
    RecordFilter all;
    const ForwardOutput fast = run(m, input_for(s), &all, Backend::Fast);
    const ForwardOutput reference = run(m, input_for(s), &all, Backend::Reference);
    EXPECT_TRUE(all_close(fast.hidden.data, reference.hidden.data, 1e-5));
    EXPECT_TRUE(all_close(fast.logits.data, reference.logits.data, 1e-5));
    for (const char* name :
         {"encoder.self_attn.activated", "decoder.self_attn.activated", "decoder.cross_attn.activated"}) {
      const std::string block = std::string(name).substr(0, std::string(name).rfind('.'));
      const Tensor& output = stage(reference, 0, block + ".output");
      const Tensor& activated = stage(reference, 0, name);
      ASSERT_EQ(activated.size(), output.size()) << name;
      for (std::size_t i = 0; i < output.size(); ++i)
        EXPECT_EQ(activated.data[i], activate(output.data[i], act)) << name;
    }
  }
}

TEST(LayerNormOff, TheModelHasNoNormParametersAnywhere) {
  for (bool enc_dec : {false, true}) {
    const ModelSpec with = small([&](ModelSpec& s) {
      s.final_norm = true;
      s.encoder_layers = enc_dec ? 1 : 0;
    });
    ModelSpec without = with;
    without.layer_norm = false;
    const Transformer a = model_of(with), b = model_of(without);
    std::vector<std::string> names_with, names_without;
    std::size_t floats = 0;
    a.visit_parameters([&](const Parameter& p) { names_with.push_back(p.name()); });
    b.visit_parameters([&](const Parameter& p) {
      names_without.push_back(p.name());
      floats += p.size();
      EXPECT_EQ(p.name().find("norm"), std::string::npos) << p.name();
    });
    // The same list less every norm: 2 layers x 2 norms (x 3 in the decoder) + final norms, weight and bias.
    std::vector<std::string> expected;
    for (const std::string& n : names_with)
      if (n.find("norm") == std::string::npos) expected.push_back(n);
    EXPECT_EQ(names_without, expected);
    EXPECT_EQ(names_with.size() - names_without.size(), enc_dec ? 2u * (2 + 2 * 3 + 2) : 2u * (2 * 2 + 1));
    EXPECT_EQ(parameter_floats(without), static_cast<double>(floats));
    EXPECT_EQ(parameter_floats(with) - parameter_floats(without),
              8.0 * static_cast<double>(names_with.size() - names_without.size()));  // E = 8 per tensor

    // Saved without norms, loaded back identically; a file with norms is refused by name.
    const std::vector<std::uint8_t> bytes = save_safetensors(b);
    Transformer c = Transformer::create(without).value();
    ASSERT_TRUE(load_safetensors(c, bytes.data(), bytes.size()).ok());
    EXPECT_EQ(save_safetensors(c), bytes);
    const std::vector<std::uint8_t> normed = save_safetensors(a);
    const Status refused = load_safetensors(c, normed.data(), normed.size());
    ASSERT_FALSE(refused.ok());
    EXPECT_EQ(refused.error_value().code, error_code::kUnexpectedTensor);
    EXPECT_NE(refused.error_value().field.find("norm"), std::string::npos) << refused.error_value().field;
  }
}

TEST(LayerNormOff, EveryNormIsTheIdentityInEitherPlacement) {
  for (NormPlacement placement : {NormPlacement::Post, NormPlacement::Pre}) {
    const ModelSpec s = small([&](ModelSpec& m) {
      m.layer_norm = false;
      m.norm = placement;
      m.final_norm = true;
    });
    const Transformer m = model_of(s);
    RecordFilter all;
    const ForwardOutput out = run(m, input_for(s), &all);
    for (const Stage& st : out.trace.stages) EXPECT_EQ(st.name.find("norm"), std::string::npos) << st.name;
    for (int layer : {0, 1}) {
      // x + attn(x), then + ffn(...): the sub-layers read the residual stream itself.
      const Tensor& x = layer == 0 ? stage(out, -1, "encoder.input") : stage(out, 0, "encoder.output");
      const Tensor& attn = stage(out, layer, "encoder.self_attn.output");
      const Tensor& r1 = stage(out, layer, "encoder.residual1");
      const Tensor& ffn = stage(out, layer, "encoder.ffn.output");
      const Tensor& r2 = stage(out, layer, "encoder.residual2");
      for (std::size_t i = 0; i < x.size(); ++i) {
        EXPECT_EQ(r1.data[i], x.data[i] + attn.data[i]);
        EXPECT_EQ(r2.data[i], r1.data[i] + ffn.data[i]);
      }
      EXPECT_EQ(stage(out, layer, "encoder.self_attn.q_proj").data.size(), x.size());
      EXPECT_EQ(stage(out, layer, "encoder.output").data, r2.data);
    }
    EXPECT_EQ(out.hidden.data, stage(out, 1, "encoder.output").data);  // finalNorm: the identity too
    // Post and pre without norms are the same model.
    ModelSpec other = s;
    other.norm = placement == NormPlacement::Post ? NormPlacement::Pre : NormPlacement::Post;
    EXPECT_EQ(run(model_of(other), input_for(other)).hidden.data, out.hidden.data);
    // The fast backend against the reference.
    EXPECT_TRUE(all_close(out.logits.data, run(m, input_for(s), nullptr, Backend::Reference).logits.data, 1e-5));
  }
}

TEST(LayerNormOff, ChangesTheOutputAndKeepsEveryOtherWeight) {
  const ModelSpec with = small();
  const ModelSpec without = small([](ModelSpec& s) { s.layer_norm = false; });
  const Transformer a = model_of(with), b = model_of(without);
  // initialize_random draws the same values for the parameters both have (norms are drawn from nothing).
  std::vector<std::vector<float>> shared_a, shared_b;
  a.visit_parameters([&](const Parameter& p) {
    if (p.name().find("norm") == std::string::npos) shared_a.push_back(p.values());
  });
  b.visit_parameters([&](const Parameter& p) { shared_b.push_back(p.values()); });
  EXPECT_EQ(shared_a, shared_b);
  EXPECT_FALSE(all_close(run(a, input_for(with)).hidden.data, run(b, input_for(without)).hidden.data, 1e-3));
}
