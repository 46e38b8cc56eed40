// Tasks and the trainer: example formats, held-out sets that training never draws,
// bit-for-bit determinism, refused divergent steps, snapshots.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "attention/trainer.hpp"

using namespace attention;

namespace {

std::unique_ptr<Task> task(const char* name, int length = 5, int symbols = 6) {
  TaskOptions o;
  o.name = name;
  o.length = length;
  o.symbols = symbols;
  o.modulus = 7;
  o.text = "the cat sat on the mat and the dog sat on the log; the end.";
  Result<std::unique_ptr<Task>> t = make_task(o);
  EXPECT_TRUE(t.ok()) << t.error();
  return std::move(t.value());
}

std::shared_ptr<Transformer> model_for(const Task& t, float lr_unused = 0) {
  (void)lr_unused;
  ModelSpec s;
  s.vocab_size = t.vocab_size();
  s.max_seq = t.seq_len();
  s.d_model = 16;
  s.heads = 2;
  s.layers = 2;
  s.ffn_dim = 32;
  s.causal = true;
  auto m = std::make_shared<Transformer>(Transformer::create(s).value());
  m->initialize_random(1);
  return m;
}

}  // namespace

TEST(Tasks, ExamplesHaveTheDocumentedFormat) {
  SplitMix64 rng(1);
  const Example sort = task("sort")->draw(rng, false);
  ASSERT_EQ(sort.ids.size(), 11u);
  EXPECT_EQ(sort.ids[5], 6);  // the separator
  std::vector<int> sorted(sort.ids.begin(), sort.ids.begin() + 5);
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(std::vector<int>(sort.ids.begin() + 6, sort.ids.end()), sorted);
  for (int i = 0; i < 11; ++i) EXPECT_EQ(sort.targets[i], i >= 5 && i < 10 ? sort.ids[i + 1] : -100) << i;

  const Example reverse = task("reverse")->draw(rng, false);
  for (int i = 0; i < 5; ++i) EXPECT_EQ(reverse.ids[6 + i], reverse.ids[4 - i]);

  const Example induction = task("induction")->draw(rng, false);
  ASSERT_EQ(induction.ids.size(), 10u);
  for (int i = 0; i < 10; ++i)
    if (induction.targets[i] != -100) EXPECT_EQ(induction.targets[i], induction.ids[i + 1]) << i;

  const Example recall = task("recall", 3, 5)->draw(rng, false);
  ASSERT_EQ(recall.ids.size(), 8u);
  const int key = recall.ids[7];
  int value = -1;
  for (int i = 0; i < 6; i += 2)
    if (recall.ids[i] == key) value = recall.ids[i + 1];
  EXPECT_EQ(recall.targets[7], value);

  const Example add = task("modadd")->draw(rng, false);
  EXPECT_EQ(add.targets[3], (add.ids[0] + add.ids[2]) % 7);

  const Example parens = task("parens", 6)->draw(rng, false);
  int depth = 0;
  bool ok = true;
  for (int i = 0; i < 6; ++i) {
    depth += parens.ids[i] == 0 ? 1 : -1;
    ok = ok && depth >= 0;
  }
  EXPECT_EQ(parens.targets[6], ok && depth == 0 ? 3 : 4);

  const Example text = task("text", 6)->draw(rng, false);
  for (int i = 0; i + 1 < 6; ++i) EXPECT_EQ(text.targets[i], text.ids[i + 1]);
}

// The repeat of an induction example: where its segment starts, where the repeat starts, and its length,
// read from the example alone (the scored positions are the repeat but its last token).
struct Repeat {
  int first, second, length;
};
Repeat repeat_of(const Example& e) {
  const int n = static_cast<int>(e.ids.size());
  int second = -1, scored = 0;
  for (int i = 0; i < n; ++i)
    if (e.targets[i] != -100) {
      if (second < 0) second = i;
      ++scored;
    }
  EXPECT_GE(second, 0);
  const int length = scored + 1;
  int first = -1;
  for (int i = 0; i + length <= second && first < 0; ++i)
    if (std::equal(e.ids.begin() + i, e.ids.begin() + i + length, e.ids.begin() + second)) first = i;
  return {first, second, length};
}

TEST(Tasks, InductionRepeatsASegmentAtADistanceThatVariesPerExample) {
  const int n = 12, symbols = 16;
  std::unique_ptr<Task> t = task("induction", n, symbols);
  ASSERT_EQ(t->seq_len(), 2 * n);
  SplitMix64 rng(7);
  std::set<int> distances, lengths, starts;
  for (int k = 0; k < 400; ++k) {
    const Example e = t->draw(rng, k % 2 == 0);
    ASSERT_EQ(e.ids.size(), static_cast<std::size_t>(2 * n));
    const Repeat r = repeat_of(e);
    ASSERT_GE(r.first, 0) << "the scored part repeats an earlier segment";
    EXPECT_GE(r.length, n / 2);
    EXPECT_LE(r.length, n - 1);
    EXPECT_GE(r.second, r.first + r.length) << "the copies do not overlap";
    // The segment's symbols are distinct and occur nowhere else: each scored token has exactly one
    // earlier copy, and its target is the token right after that copy (what an induction head reads).
    for (int i = r.second; i + 1 < r.second + r.length; ++i) {
      int copies = 0, after = -1;
      for (int j = 0; j < i; ++j)
        if (e.ids[j] == e.ids[i]) {
          ++copies;
          after = e.ids[j + 1];
        }
      EXPECT_EQ(copies, 1) << "position " << i;
      EXPECT_EQ(e.targets[i], after) << "position " << i;
      EXPECT_EQ(e.targets[i], e.ids[i + 1]);
    }
    for (int i = 0; i < 2 * n; ++i)
      if (i < r.second || i >= r.second + r.length - 1) EXPECT_EQ(e.targets[i], -100) << i;
    distances.insert(r.second - r.first);
    lengths.insert(r.length);
    starts.insert(r.second);
  }
  // Position alone cannot find the earlier copy: the distance back to it takes many values.
  EXPECT_GE(distances.size(), 6u);
  EXPECT_GE(lengths.size(), 5u);
  EXPECT_GE(starts.size(), 8u);

  // Deterministic: the same seed draws the same examples.
  SplitMix64 a(3), b(3);
  for (int k = 0; k < 20; ++k) EXPECT_EQ(t->draw(a, false).ids, t->draw(b, false).ids);

  TaskOptions bad;
  bad.name = "induction";
  bad.length = 2;
  EXPECT_EQ(make_task(bad).error_value().field, "length");
  bad.length = 12;
  bad.symbols = 11;
  EXPECT_EQ(make_task(bad).error_value().field, "symbols");
}

TEST(Tasks, TrainingNeverDrawsAHeldOutExample) {
  for (const char* name : {"sort", "modadd", "recall"}) {
    std::unique_ptr<Task> t = task(name, 3, 4);
    std::set<std::vector<int>> held;
    SplitMix64 rng(2);
    for (int i = 0; i < 300; ++i) held.insert(t->draw(rng, true).ids);
    for (int i = 0; i < 3000; ++i) EXPECT_EQ(held.count(t->draw(rng, false).ids), 0u) << name;
  }
  TaskOptions bad;
  bad.name = "parens";
  bad.length = 5;
  EXPECT_EQ(make_task(bad).error_value().field, "length");
  bad.name = "text";
  bad.text = "ab";
  EXPECT_EQ(make_task(bad).error_value().field, "text");
}

TEST(Trainer, SameSeedSameLossesBitForBit) {
  std::vector<double> runs[2];
  for (auto& losses : runs) {
    std::unique_ptr<Task> t = task("sort");
    auto model = model_for(*t);
    OptimizerOptions o;
    o.lr = 3e-3;
    TrainerSettings settings;
    settings.batch_size = 8;
    auto trainer = Trainer::create(model, o, settings, std::move(t)).value();
    for (int i = 0; i < 5; ++i) losses.push_back(trainer->step().value().loss);
  }
  EXPECT_EQ(runs[0], runs[1]);
  EXPECT_LT(runs[0].back(), runs[0].front());
}

TEST(Trainer, ADivergentStepIsRefusedAndKeepsTheParameters) {
  std::unique_ptr<Task> t = task("copy");
  auto model = model_for(*t);
  auto trainer = Trainer::create(model, OptimizerOptions{}, TrainerSettings{}, std::move(t)).value();
  ASSERT_TRUE(trainer->step().ok());
  // Weights so large that the feed-forward output overflows float32: the loss is not finite.
  for (float& v : model->find_parameter("layers.1.linear2.weight")->mutable_values()) v = 3e38f;
  std::vector<std::vector<float>> before;
  model->visit_parameters([&](const Parameter& p) { before.push_back(p.values()); });
  Result<StepReport> r = trainer->step();
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error_value().code, error_code::kDiverged);
  EXPECT_NE(r.error().find("not finite"), std::string::npos) << r.error();
  std::vector<std::vector<float>> after;
  model->visit_parameters([&](const Parameter& p) { after.push_back(p.values()); });
  EXPECT_EQ(after, before);
  EXPECT_EQ(trainer->steps(), 1);
}

TEST(Trainer, SnapshotsRestoreParametersOptimizerAndBatches) {
  std::unique_ptr<Task> t = task("reverse");
  auto model = model_for(*t);
  auto trainer = Trainer::create(model, OptimizerOptions{}, TrainerSettings{}, std::move(t)).value();
  trainer->step();
  const Trainer::Snapshot s = trainer->snapshot();
  const double a = trainer->step().value().loss, b = trainer->step().value().loss;
  trainer->restore(s);
  EXPECT_EQ(trainer->step().value().loss, a);
  EXPECT_EQ(trainer->step().value().loss, b);
}

TEST(Trainer, ChecksTheModelAgainstTheTask) {
  std::unique_ptr<Task> t = task("sort");
  auto model = model_for(*t);
  ModelSpec s = model->spec();
  s.causal = false;
  auto bidirectional = std::make_shared<Transformer>(Transformer::create(s).value());
  EXPECT_EQ(Trainer::create(bidirectional, {}, {}, task("sort")).error_value().field, "causal");
  s.causal = true;
  s.vocab_size = 3;
  auto small_vocab = std::make_shared<Transformer>(Transformer::create(s).value());
  EXPECT_EQ(Trainer::create(small_vocab, {}, {}, task("sort")).error_value().field, "vocabSize");
  OptimizerOptions bad;
  bad.lr = 0;
  EXPECT_EQ(Trainer::create(model, bad, {}, task("sort")).error_value().field, "lr");
}

TEST(Tasks, EvalLengthMakesTheHeldOutExamplesThatLong) {
  TaskOptions o;
  o.name = "sort";
  o.length = 4;
  o.symbols = 6;
  o.eval_length = 8;
  std::unique_ptr<Task> t = std::move(make_task(o).value());
  EXPECT_EQ(t->train_seq_len(), 9);
  EXPECT_EQ(t->seq_len(), 17);  // what maxSeq must cover
  SplitMix64 rng(3);
  for (int i = 0; i < 50; ++i) {
    EXPECT_EQ(t->draw(rng, false).ids.size(), 9u);
    const Example e = t->draw(rng, true);
    ASSERT_EQ(e.ids.size(), 17u);
    EXPECT_EQ(e.ids[8], 6);  // the separator after 8 items
    std::vector<int> sorted(e.ids.begin(), e.ids.begin() + 8);
    std::sort(sorted.begin(), sorted.end());
    EXPECT_EQ(std::vector<int>(e.ids.begin() + 9, e.ids.end()), sorted);
  }
  for (const Example& e : t->evaluation_set(5, 20)) EXPECT_EQ(e.ids.size(), 17u);

  // Errors name evalLength: tasks of one length, and the longer task's own limits.
  for (const char* name : {"modadd", "text"}) {
    TaskOptions bad = o;
    bad.name = name;
    bad.text = "the cat sat on the mat and the dog sat on the log; the end.";
    EXPECT_EQ(make_task(bad).error_value().field, "evalLength") << name;
    bad.length = bad.eval_length;  // even at the training length: it would mean nothing
    EXPECT_EQ(make_task(bad).error_value().field, "evalLength") << name;
  }
  TaskOptions recall = o;
  recall.name = "recall";  // 8 pairs need 8 distinct keys
  EXPECT_EQ(make_task(recall).error_value().field, "evalLength");
  EXPECT_NE(make_task(recall).error().find("evalLength 8"), std::string::npos) << make_task(recall).error();
  TaskOptions parens = o;
  parens.name = "parens";
  parens.eval_length = 7;
  EXPECT_EQ(make_task(parens).error_value().field, "evalLength");
}

TEST(Trainer, EvaluatesOnTheLongerHeldOutExamplesAndTrainsOnTheShorterOnes) {
  TaskOptions o;
  o.name = "sort";
  o.length = 4;
  o.symbols = 6;
  o.eval_length = 8;
  ModelSpec s;
  s.vocab_size = 7;
  s.d_model = 16;
  s.heads = 2;
  s.layers = 1;
  s.ffn_dim = 32;
  s.causal = true;
  s.positions = Positions::Learned;
  s.max_seq = 9;  // the training length only
  auto short_model = std::make_shared<Transformer>(Transformer::create(s).value());
  Result<std::unique_ptr<Trainer>> refused = Trainer::create(short_model, {}, {}, std::move(make_task(o).value()));
  EXPECT_EQ(refused.error_value().field, "maxSeq");
  EXPECT_NE(refused.error().find("evalLength"), std::string::npos) << refused.error();

  s.max_seq = 17;
  auto model = std::make_shared<Transformer>(Transformer::create(s).value());
  model->initialize_random(1);
  TrainerSettings settings;
  settings.batch_size = 8;
  settings.eval_size = 32;
  auto trainer = Trainer::create(model, {}, settings, std::move(make_task(o).value())).value();
  const TrainingBatch batch = trainer->draw_batch();
  EXPECT_EQ(batch.input.seq, 9);
  ASSERT_TRUE(trainer->step().ok());
  const Evaluation before = trainer->evaluate().value();
  EXPECT_EQ(before.examples, 32);
  const double training_loss = loss_only(*model, batch).value().loss;
  // Rows 9..16 of the learned positions are read only by sequences longer than the training ones:
  // changing them changes the evaluation and not the loss of a training batch.
  std::vector<float>& pos = model->find_parameter("pos.weight")->mutable_values();
  for (std::size_t i = 9 * 16; i < pos.size(); ++i) pos[i] += 3.0f;
  EXPECT_EQ(loss_only(*model, batch).value().loss, training_loss);
  EXPECT_NE(trainer->evaluate().value().loss, before.loss);
}
