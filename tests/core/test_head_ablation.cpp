// Head ablation at inference: a switched-off head's context (weights x V, (B, Sq, d_k))
// is zero before the merge. Checked against an independent construction (the same
// model with that head's d_k columns of out_proj's weight zeroed), on both backends;
// the recorded weights stay as computed; held-out evaluation with heads off; bad
// heads are errors naming the field, and nothing changes.
#include <gtest/gtest.h>

#include <cmath>

#include "attention/grad_ops.hpp"
#include "attention/multi_head.hpp"
#include "attention/trainer.hpp"
#include "test_util.hpp"

using namespace attention;
using attention::testing::all_close;

namespace {

ModelSpec spec(int encoder_layers = 0) {
  ModelSpec s;
  s.vocab_size = 11;
  s.d_model = 12;
  s.heads = 3;  // d_k = 4
  s.layers = 2;
  s.ffn_dim = 16;
  s.max_seq = 8;
  s.causal = true;
  s.encoder_layers = encoder_layers;
  return s;
}

Transformer model_of(const ModelSpec& s) {
  Transformer m = Transformer::create(s).value();
  m.initialize_random(17);
  return m;
}

ForwardInput input() {
  ForwardInput in;
  in.batch = 2;
  in.seq = 6;
  in.ids = {1, 4, 2, 9, 3, 7, 0, 5, 10, 8, 0, 0};
  in.lengths = {6, 4};
  return in;
}

ForwardOutput run(const Transformer& m, std::vector<HeadRef> ablated, Backend backend = Backend::Fast,
                  const RecordFilter* record = nullptr) {
  ForwardOptions options;
  options.backend = backend;
  options.ablated_heads = std::move(ablated);
  options.record = record;
  Result<ForwardOutput> out = m.forward(input(), options);
  EXPECT_TRUE(out.ok()) << out.error();
  return std::move(out.value());
}

// Columns [h d_k, (h+1) d_k) of out_proj.weight (E, E) of `layer` set to 0: the head's
// context then reaches nothing, which is what ablating it means.
void zero_out_proj_columns(Transformer& m, int layer, int head) {
  const int e = m.spec().d_model, dk = m.spec().head_dim();
  Parameter* w = m.find_parameter("layers." + std::to_string(layer) + ".self_attn.out_proj.weight");
  ASSERT_NE(w, nullptr);
  std::vector<float>& v = w->mutable_values();
  for (int row = 0; row < e; ++row)
    for (int c = head * dk; c < (head + 1) * dk; ++c) v[static_cast<std::size_t>(row) * e + c] = 0.0f;
}

}  // namespace

TEST(HeadAblation, EqualsZeroingTheHeadsColumnsOfTheOutputProjection) {
  const ModelSpec s = spec();
  const Transformer model = model_of(s);
  const ForwardOutput intact = run(model, {});
  for (Backend backend : {Backend::Reference, Backend::Fast})
    for (int layer = 0; layer < s.layers; ++layer)
      for (int head = 0; head < s.heads; ++head) {
        Transformer zeroed = model_of(s);
        zero_out_proj_columns(zeroed, layer, head);
        const ForwardOutput ablated = run(model, {{layer, head}}, backend);
        const ForwardOutput expected = run(zeroed, {}, backend);
        EXPECT_TRUE(all_close(ablated.hidden.data, expected.hidden.data, 1e-6)) << layer << "." << head;
        EXPECT_TRUE(all_close(ablated.logits.data, expected.logits.data, 1e-6)) << layer << "." << head;
        EXPECT_FALSE(all_close(ablated.hidden.data, intact.hidden.data, 1e-4))
            << "the head mattered: " << layer << "." << head;
      }
  // Two heads of two layers at once, and a repeat: the same as zeroing all their columns.
  Transformer zeroed = model_of(s);
  zero_out_proj_columns(zeroed, 0, 2);
  zero_out_proj_columns(zeroed, 1, 0);
  zero_out_proj_columns(zeroed, 1, 1);
  EXPECT_TRUE(all_close(run(model, {{1, 1}, {0, 2}, {1, 0}, {1, 1}}).hidden.data, run(zeroed, {}).hidden.data, 1e-6));
}

TEST(HeadAblation, TheContextIsZeroAndTheWeightsStayAsComputed) {
  const ModelSpec s = spec();
  const Transformer model = model_of(s);
  RecordFilter filter;
  filter.patterns = {"*.weights", "*.context", "*.merged", "*.self_attn.output"};
  filter.layers = {0};
  const ForwardOutput intact = run(model, {}, Backend::Fast, &filter);
  const ForwardOutput ablated = run(model, {{0, 1}}, Backend::Fast, &filter);
  const auto stage = [](const ForwardOutput& o, const char* name) -> const Tensor& {
    return o.trace.find(0, std::string("decoder.self_attn.") + name)->tensor;
  };
  EXPECT_EQ(stage(ablated, "weights").data, stage(intact, "weights").data);
  const Tensor& context = stage(ablated, "context");  // (B, H, Sq, d_k)
  ASSERT_EQ(context.shape, (std::vector<int>{2, 3, 6, 4}));
  for (int b = 0; b < 2; ++b)
    for (int h = 0; h < 3; ++h)
      for (int i = 0; i < 6; ++i)
        for (int d = 0; d < 4; ++d)
          EXPECT_EQ(context.at({b, h, i, d}), h == 1 ? 0.0f : stage(intact, "context").at({b, h, i, d}));
  const Tensor& merged = stage(ablated, "merged");  // (B, Sq, E): columns 4..7 are head 1's
  for (std::size_t r = 0; r < 12; ++r)
    for (int c = 0; c < 12; ++c)
      EXPECT_EQ(merged.data[r * 12 + c], c >= 4 && c < 8 ? 0.0f : stage(intact, "merged").data[r * 12 + c]);
  // Every head off: the attention output is out_proj's bias alone (zero after random init).
  const ForwardOutput silent = run(model, {{0, 0}, {0, 1}, {0, 2}}, Backend::Fast, &filter);
  for (float v : stage(silent, "output").data) EXPECT_EQ(v, 0.0f);
}

TEST(HeadAblation, BadHeadsAreErrorsNamingTheFieldAndChangeNothing) {
  const Transformer model = model_of(spec());
  const std::vector<float> before = run(model, {}).hidden.data;
  struct Case {
    std::vector<HeadRef> heads;
    const char* field;
    const char* code;
    const char* message;
  };
  const Case cases[] = {
      {{{0, 0}, {2, 0}}, "ablate.layer", error_code::kOutOfRange, "ablate[1].layer is 2, outside the layers 0..1"},
      {{{-1, 0}}, "ablate.layer", error_code::kOutOfRange, "ablate[0].layer is -1"},
      {{{1, 3}}, "ablate.head", error_code::kOutOfRange, "ablate[0].head is 3, outside the heads 0..2"},
      {{{0, -2}}, "ablate.head", error_code::kOutOfRange, "ablate[0].head is -2"},
  };
  for (const Case& c : cases) {
    ForwardOptions options;
    options.ablated_heads = c.heads;
    Result<ForwardOutput> r = model.forward(input(), options);
    ASSERT_FALSE(r.ok()) << c.message;
    EXPECT_EQ(r.error_value().field, c.field);
    EXPECT_EQ(r.error_value().code, c.code);
    EXPECT_NE(r.error().find(c.message), std::string::npos) << r.error();
  }
  EXPECT_EQ(run(model, {}).hidden.data, before);

  // An encoder–decoder has no single stack of self-attention to index: refused.
  const Transformer enc_dec = model_of(spec(1));
  ForwardInput in = input();
  in.source_seq = 3;
  in.source_ids = {1, 2, 3, 4, 5, 6};
  ForwardOptions options;
  options.ablated_heads = {{0, 0}};
  Result<ForwardOutput> r = enc_dec.forward(in, options);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error_value().field, "ablate");
  EXPECT_EQ(r.error_value().code, error_code::kInvalidArgument);
  EXPECT_TRUE(enc_dec.forward(in).ok());

  // The multi-head layer itself checks its heads.
  const Tensor x = attention::testing::random_tensor({"B", "S", "E"}, {1, 2, 12}, 3);
  MultiHeadWeights w;
  w.embed_dim = 12;
  w.in_proj_weight = attention::testing::random_vector(3 * 144, 4);
  w.out_proj_weight = attention::testing::random_vector(144, 5);
  MultiHeadOptions mha;
  mha.heads = 3;
  mha.ablated_heads = {3};
  EXPECT_EQ(multi_head_attention(x, x, x, w, mha).error_value().field, "ablated_heads");
}

TEST(HeadAblation, TheTrainingForwardAblatesAsTheInferenceForward) {
  // loss_only (the tape's forward, which evaluate() uses) with heads off: the loss of the
  // inference logits with the same heads off.
  const ModelSpec s = spec();
  const Transformer model = model_of(s);
  TrainingBatch batch;
  batch.input = input();
  batch.targets = {4, 2, 9, 3, 7, -100, 5, 10, 8, -100, -100, -100};
  for (const std::vector<HeadRef>& heads : {std::vector<HeadRef>{}, {{0, 1}}, {{1, 0}, {1, 2}}}) {
    for (Backend backend : {Backend::Reference, Backend::Fast}) {
      const double training = loss_only(model, batch, backend, heads).value().loss;
      const ForwardOutput out = run(model, heads, backend);
      std::vector<float> dlogits(out.logits.size());
      int counted = 0;
      const double inference =
          grad::cross_entropy(out.logits.ptr(), batch.targets.data(), 12, s.vocab_size, dlogits.data(), &counted);
      EXPECT_NEAR(training, inference, 1e-5 * inference) << heads.size();
    }
  }
  EXPECT_NE(loss_only(model, batch, Backend::Fast, {{0, 1}}).value().loss, loss_only(model, batch).value().loss);
  EXPECT_EQ(loss_only(model, batch, Backend::Fast, {{0, 3}}).error_value().field, "ablate.head");
}

TEST(HeadAblation, EvaluateWithHeadsOff) {
  TaskOptions o;
  o.name = "copy";
  o.length = 4;
  o.symbols = 5;
  std::unique_ptr<Task> task = make_task(o).value();
  ModelSpec s = spec();
  s.vocab_size = task->vocab_size();
  s.max_seq = task->seq_len();
  s.d_model = 16;
  s.heads = 2;
  s.norm = NormPlacement::Pre;
  s.positions = Positions::Learned;
  auto model = std::make_shared<Transformer>(model_of(s));
  OptimizerOptions opt;
  opt.lr = 3e-3;
  TrainerSettings settings;
  settings.eval_size = 64;
  std::unique_ptr<Trainer> trainer = Trainer::create(model, opt, settings, std::move(task)).value();
  for (int i = 0; i < 150; ++i) ASSERT_TRUE(trainer->step().ok());
  const Evaluation all = trainer->evaluate().value();
  EXPECT_GT(all.accuracy, 0.9) << "copy needs attention: a model that copies";
  EXPECT_EQ(trainer->evaluate({}).value().loss, all.loss);
  // Every head off: the answers cannot be read from earlier positions any more.
  const Evaluation none = trainer->evaluate({{0, 0}, {0, 1}, {1, 0}, {1, 1}}).value();
  EXPECT_LT(none.accuracy, 0.5);
  EXPECT_GT(none.loss, all.loss + 1.0);
  EXPECT_EQ(none.examples, all.examples);
  const Evaluation one = trainer->evaluate({{1, 0}}).value();
  EXPECT_NE(one.loss, all.loss);
  // A bad head: an error naming it, and the trainer goes on as before.
  Result<Evaluation> bad = trainer->evaluate({{0, 2}});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error_value().field, "ablate.head");
  EXPECT_EQ(trainer->evaluate().value().loss, all.loss);
  EXPECT_TRUE(trainer->step().ok());
}
