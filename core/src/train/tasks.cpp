#include "attention/tasks.hpp"

#include <algorithm>
#include <map>

#include "attention/grad_ops.hpp"
#include "attention/tokenizer.hpp"

namespace attention {

namespace {

constexpr int kIgnore = grad::kIgnoreIndex;

std::uint64_t hash_ids(const std::vector<int>& ids) {
  std::uint64_t h = 0xCBF29CE484222325ull;
  for (int id : ids) {
    h ^= static_cast<std::uint64_t>(id) + 0x9E3779B97F4A7C15ull;
    h *= 0x100000001B3ull;
    h ^= h >> 29;
  }
  return h;
}

int uniform(SplitMix64& rng, int n) { return static_cast<int>(rng.next() % static_cast<std::uint64_t>(n)); }

// Items 0..symbols-1 and a separator: x_1..x_n SEP y_1..y_n, targets y_i at the
// position before each (SEP predicts y_1, y_i predicts y_{i+1}).
class ListTask : public Task {
 public:
  enum class Kind { Copy, Reverse, Sort };
  ListTask(Kind kind, int length, int symbols) : kind_(kind), n_(length), k_(symbols) {}
  int vocab_size() const override { return k_ + 1; }
  int seq_len() const override { return 2 * n_ + 1; }
  std::string token_text(int id) const override { return id == k_ ? "|" : std::to_string(id); }

 protected:
  Example generate(SplitMix64& rng) const override {
    std::vector<int> x(static_cast<std::size_t>(n_));
    for (int& v : x) v = uniform(rng, k_);
    std::vector<int> y = x;
    if (kind_ == Kind::Reverse) std::reverse(y.begin(), y.end());
    if (kind_ == Kind::Sort) std::sort(y.begin(), y.end());
    Example e;
    e.ids = x;
    e.ids.push_back(k_);
    e.ids.insert(e.ids.end(), y.begin(), y.end());
    e.targets.assign(e.ids.size(), kIgnore);
    for (int i = 0; i < n_; ++i) e.targets[static_cast<std::size_t>(n_ + i)] = y[static_cast<std::size_t>(i)];
    return e;
  }

 private:
  Kind kind_;
  int n_, k_;
};

// Associative recall: k_1 v_1 ... k_n v_n SEP k_q -> v_q. Keys 0..K-1 (distinct), values
// K..2K-1, SEP = 2K. The only target is at the last position.
class RecallTask : public Task {
 public:
  RecallTask(int pairs, int symbols) : n_(pairs), k_(symbols) {}
  int vocab_size() const override { return 2 * k_ + 1; }
  int seq_len() const override { return 2 * n_ + 2; }
  std::string token_text(int id) const override {
    return id == 2 * k_ ? "?" : id < k_ ? std::string(1, static_cast<char>('a' + id % 26)) : std::to_string(id - k_);
  }

 protected:
  Example generate(SplitMix64& rng) const override {
    std::vector<int> keys(static_cast<std::size_t>(k_));
    for (int i = 0; i < k_; ++i) keys[static_cast<std::size_t>(i)] = i;
    for (int i = k_ - 1; i > 0; --i)
      std::swap(keys[static_cast<std::size_t>(i)], keys[static_cast<std::size_t>(uniform(rng, i + 1))]);
    Example e;
    std::vector<int> values;
    for (int i = 0; i < n_; ++i) {
      values.push_back(k_ + uniform(rng, k_));
      e.ids.push_back(keys[static_cast<std::size_t>(i)]);
      e.ids.push_back(values.back());
    }
    const int q = uniform(rng, n_);
    e.ids.push_back(2 * k_);
    e.ids.push_back(keys[static_cast<std::size_t>(q)]);
    e.targets.assign(e.ids.size(), kIgnore);
    e.targets.back() = values[static_cast<std::size_t>(q)];
    return e;
  }

 private:
  int n_, k_;
};

// Induction: within 2n tokens, a segment r_1..r_L of distinct symbols and, later, the same
// segment again; filler tokens (other symbols) before, between and after. In the repeat,
// r_i predicts r_{i+1}. L, where the segment starts and the gap before its repeat are drawn
// per example, so the distance back to the earlier copy differs between examples: no head
// can find it by position alone, and the model needs a previous-token head in layer 0 and
// an induction head in layer 1 (attend to the token after the earlier copy of this one).
class InductionTask : public Task {
 public:
  // The task's limits, declared once (make_induction checks them; the format in task_entries says them).
  static constexpr int kMinLength = 3;                   // L ranges over [max(2, n/2), n - 1]: needs n >= 3
  static int min_symbols(int length) { return length; }  // L <= n - 1 distinct symbols, and at least one filler symbol
  static int shortest_repeat(int length) { return std::max(2, length / 2); }
  static int longest_repeat(int length) { return length - 1; }

  InductionTask(int length, int symbols) : n_(length), k_(symbols) {}
  int vocab_size() const override { return k_; }
  int seq_len() const override { return 2 * n_; }
  std::string token_text(int id) const override { return std::to_string(id); }

 protected:
  Example generate(SplitMix64& rng) const override {
    const int lo = shortest_repeat(n_), hi = longest_repeat(n_);
    const int length = lo + uniform(rng, hi - lo + 1);
    const int room = 2 * n_ - 2 * length;  // filler tokens: >= 2
    const int gap = uniform(rng, room + 1);
    const int first = uniform(rng, room - gap + 1);
    const int second = first + length + gap;
    // A random permutation of the symbols: the segment takes the first `length`, the filler the rest.
    std::vector<int> symbols(static_cast<std::size_t>(k_));
    for (int i = 0; i < k_; ++i) symbols[static_cast<std::size_t>(i)] = i;
    for (int i = k_ - 1; i > 0; --i)
      std::swap(symbols[static_cast<std::size_t>(i)], symbols[static_cast<std::size_t>(uniform(rng, i + 1))]);
    Example e;
    e.ids.assign(static_cast<std::size_t>(2 * n_), 0);
    for (int& id : e.ids) id = symbols[static_cast<std::size_t>(length + uniform(rng, k_ - length))];
    for (int i = 0; i < length; ++i) {
      e.ids[static_cast<std::size_t>(first + i)] = symbols[static_cast<std::size_t>(i)];
      e.ids[static_cast<std::size_t>(second + i)] = symbols[static_cast<std::size_t>(i)];
    }
    e.targets.assign(e.ids.size(), kIgnore);
    for (int i = second; i + 1 < second + length; ++i)
      e.targets[static_cast<std::size_t>(i)] = e.ids[static_cast<std::size_t>(i + 1)];
    return e;
  }

 private:
  int n_, k_;
};

// Modular addition: a + b = -> c (mod p). Ids 0..p-1, PLUS = p, EQ = p + 1. The pairs
// (a, b) with (a * p + b) % 5 == 0 are held out.
class ModAddTask : public Task {
 public:
  explicit ModAddTask(int p) : p_(p) {}
  int vocab_size() const override { return p_ + 2; }
  int seq_len() const override { return 4; }
  std::string token_text(int id) const override { return id == p_ ? "+" : id == p_ + 1 ? "=" : std::to_string(id); }

 protected:
  Example generate(SplitMix64& rng) const override {
    const int a = uniform(rng, p_), b = uniform(rng, p_);
    Example e;
    e.ids = {a, p_, b, p_ + 1};
    e.targets = {kIgnore, kIgnore, kIgnore, (a + b) % p_};
    return e;
  }
  bool in_held_out(const Example& e) const override { return (e.ids[0] * p_ + e.ids[2]) % 5 == 0; }

 private:
  int p_;
};

// Balanced parentheses: n symbols of '(' (0) and ')' (1), then '?' (2) -> yes (3) / no (4).
// Half the examples are balanced.
class ParensTask : public Task {
 public:
  explicit ParensTask(int length) : n_(length) {}
  int vocab_size() const override { return 5; }
  int seq_len() const override { return n_ + 1; }
  std::string token_text(int id) const override {
    static const char* names[] = {"(", ")", "?", "yes", "no"};
    return names[id];
  }

 protected:
  Example generate(SplitMix64& rng) const override {
    std::vector<int> s(static_cast<std::size_t>(n_));
    if (rng.next() & 1) {  // a balanced one: a random Dyck word
      int open = 0, remaining_opens = n_ / 2;
      for (int i = 0; i < n_; ++i) {
        const int left = n_ - i;
        const bool must_close = open == left || remaining_opens == 0;
        const bool must_open = open == 0;
        const bool do_open = !must_close && (must_open || (rng.next() & 1));
        s[static_cast<std::size_t>(i)] = do_open ? 0 : 1;
        open += do_open ? 1 : -1;
        remaining_opens -= do_open;
      }
    } else {
      for (int& v : s) v = static_cast<int>(rng.next() & 1);
    }
    int depth = 0;
    bool balanced = true;
    for (int v : s) {
      depth += v == 0 ? 1 : -1;
      balanced = balanced && depth >= 0;
    }
    balanced = balanced && depth == 0;
    Example e;
    e.ids = s;
    e.ids.push_back(2);
    e.targets.assign(e.ids.size(), kIgnore);
    e.targets.back() = balanced ? 3 : 4;
    return e;
  }

 private:
  int n_;
};

// Next-token prediction on the learner's text: windows of length+1 tokens; each of the
// first `length` predicts the next. Characters or words (the playground tokenizer).
// The last tenth of the windows is held out; training windows end before it starts.
class TextTask : public Task {
 public:
  TextTask(std::vector<int> ids, std::vector<std::string> vocabulary, int length)
      : ids_(std::move(ids)), vocabulary_(std::move(vocabulary)), n_(length) {}
  int vocab_size() const override { return static_cast<int>(vocabulary_.size()); }
  int seq_len() const override { return n_; }
  std::string token_text(int id) const override { return vocabulary_[static_cast<std::size_t>(id)]; }
  Example draw(SplitMix64& rng, bool held_out) const override {
    const int starts = static_cast<int>(ids_.size()) - n_;  // windows of n + 1 tokens
    const int held = std::max(1, starts / 10);
    const int training = std::max(1, starts - held - n_);  // starts 0 .. training - 1
    const int start = held_out ? starts - held + uniform(rng, held) : uniform(rng, training);
    Example e;
    e.ids.assign(ids_.begin() + start, ids_.begin() + start + n_);
    e.targets.assign(ids_.begin() + start + 1, ids_.begin() + start + n_ + 1);
    return e;
  }

 protected:
  Example generate(SplitMix64& rng) const override { return draw(rng, false); }

 private:
  std::vector<int> ids_;
  std::vector<std::string> vocabulary_;
  int n_;
};

// The caller's sequences; every one is both drawn for training and evaluated.
class DataTask : public Task {
 public:
  DataTask(std::vector<Example> examples, int seq, int vocab)
      : examples_(std::move(examples)), seq_(seq), vocab_(vocab) {}
  int vocab_size() const override { return vocab_; }
  int seq_len() const override { return seq_; }
  std::string token_text(int id) const override { return std::to_string(id); }
  Example draw(SplitMix64& rng, bool) const override {
    return examples_[static_cast<std::size_t>(uniform(rng, static_cast<int>(examples_.size())))];
  }
  std::vector<Example> evaluation_set(std::uint64_t, int) const override { return examples_; }

 protected:
  Example generate(SplitMix64& rng) const override { return draw(rng, false); }

 private:
  std::vector<Example> examples_;
  int seq_, vocab_;
};

// evalLength: training examples from one task, held-out ones from the same task made with
// length = evalLength (both draw from their held-out part, so the split stays the same rule).
class OtherLengthHeldOut : public Task {
 public:
  OtherLengthHeldOut(std::unique_ptr<Task> training, std::unique_ptr<Task> held_out)
      : training_(std::move(training)), held_out_(std::move(held_out)) {}
  int vocab_size() const override { return training_->vocab_size(); }  // the tasks' vocabularies ignore length
  int seq_len() const override { return std::max(training_->seq_len(), held_out_->seq_len()); }
  int train_seq_len() const override { return training_->seq_len(); }
  std::string token_text(int id) const override { return training_->token_text(id); }
  Example draw(SplitMix64& rng, bool held_out) const override {
    return held_out ? held_out_->draw(rng, true) : training_->draw(rng, false);
  }
  std::vector<Example> evaluation_set(std::uint64_t seed, int count) const override {
    return held_out_->evaluation_set(seed, count);
  }

 protected:
  Example generate(SplitMix64& rng) const override { return training_->draw(rng, false); }

 private:
  std::unique_ptr<Task> training_, held_out_;
};

// UTF-8 characters of a text, each a token.
std::vector<std::string> characters(const std::string& text) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < text.size();) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    const std::size_t n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : 4;
    out.push_back(text.substr(i, n));
    i += n;
  }
  return out;
}

}  // namespace

const Schema<TaskOptions>& task_schema() {
  using T = TaskOptions;
  static const Schema<TaskOptions> schema{
      {
          {{"name", "choice", 0, 0, false, task_names(),
            "The task (see task_infos for each one's format and the pattern that solves it)."},
           [](const T& t) { return Json(t.name); },
           [](T& t, const Json& v) { t.name = v.get<std::string>(); }},
          int_field("length", &T::length, 1, 64, "Items per example (recall: pairs; text: tokens per window)."),
          int_field("symbols", &T::symbols, 2, 64, "Distinct items (copy, reverse, sort, recall, induction)."),
          int_field("modulus", &T::modulus, 2, 97, "modadd: the p of a + b mod p."),
          {{"text", "text", 0, 100000, false, {}, "text: what to learn to continue (up to 100,000 bytes)."},
           [](const T& t) { return Json(t.text); },
           [](T& t, const Json& v) { t.text = v.get<std::string>(); }},
          bool_field("words", &T::words, "text: tokens are words (else characters)."),
          int_field("evalLength", &T::eval_length, 0, 128,
                    "Items per held-out example, e.g. twice the length: does what was learned at one length "
                    "work at another (length generalisation)? 0 = length. Not for modadd and text."),
      },
      {}};
  return schema;
}

Example Task::draw(SplitMix64& rng, bool held_out) const {
  for (;;) {
    Example e = generate(rng);
    if (in_held_out(e) == held_out) return e;
  }
}

bool Task::in_held_out(const Example& e) const { return hash_ids(e.ids) % 8 == 0; }

std::vector<Example> Task::evaluation_set(std::uint64_t seed, int count) const {
  SplitMix64 rng(seed);
  std::vector<Example> set;
  for (int i = 0; i < count; ++i) set.push_back(draw(rng, true));
  return set;
}

Result<std::unique_ptr<Task>> make_data_task(const std::vector<int>& ids, const std::vector<int>& targets, int batch,
                                             int seq, int vocab_size) {
  if (batch < 1 || seq < 1 || ids.size() != static_cast<std::size_t>(batch) * seq)
    return Error{"data.ids must hold batch x seq ids", error_code::kShapeMismatch, "ids"};
  if (targets.size() != ids.size())
    return Error{"data.targets must hold batch x seq targets, like ids", error_code::kShapeMismatch, "targets"};
  std::vector<Example> examples;
  for (int b = 0; b < batch; ++b) {
    Example e;
    e.ids.assign(ids.begin() + static_cast<std::ptrdiff_t>(b) * seq,
                 ids.begin() + static_cast<std::ptrdiff_t>(b + 1) * seq);
    e.targets.assign(targets.begin() + static_cast<std::ptrdiff_t>(b) * seq,
                     targets.begin() + static_cast<std::ptrdiff_t>(b + 1) * seq);
    examples.push_back(std::move(e));
  }
  return std::unique_ptr<Task>(new DataTask(std::move(examples), seq, vocab_size));
}

namespace {

using K = ListTask::Kind;
using Made = Result<std::unique_ptr<Task>>;

Made make_copy(const TaskOptions& o) { return std::unique_ptr<Task>(new ListTask(K::Copy, o.length, o.symbols)); }
Made make_reverse(const TaskOptions& o) { return std::unique_ptr<Task>(new ListTask(K::Reverse, o.length, o.symbols)); }
Made make_sort(const TaskOptions& o) { return std::unique_ptr<Task>(new ListTask(K::Sort, o.length, o.symbols)); }
Made make_induction(const TaskOptions& o) {
  if (o.length < InductionTask::kMinLength)
    return Error{"induction needs a length of at least " + std::to_string(InductionTask::kMinLength) + ", got " +
                     std::to_string(o.length) + " (the repeated segment is 2..length-1 symbols, with filler around it)",
                 error_code::kOutOfRange, "length"};
  if (o.symbols < InductionTask::min_symbols(o.length))
    return Error{"induction needs at least as many symbols (" + std::to_string(o.symbols) + ") as its length (" +
                     std::to_string(o.length) + "): the segment's symbols are distinct, and the filler uses others",
                 error_code::kOutOfRange, "symbols"};
  return std::unique_ptr<Task>(new InductionTask(o.length, o.symbols));
}
Made make_modadd(const TaskOptions& o) { return std::unique_ptr<Task>(new ModAddTask(o.modulus)); }

Made make_recall(const TaskOptions& o) {
  if (o.length > o.symbols)
    return Error{"recall needs at least as many symbols (" + std::to_string(o.symbols) + ") as pairs (length " +
                     std::to_string(o.length) + "): keys are distinct",
                 error_code::kOutOfRange, "length"};
  return std::unique_ptr<Task>(new RecallTask(o.length, o.symbols));
}

Made make_parens(const TaskOptions& o) {
  if (o.length % 2 != 0)
    return Error{"parens needs an even length, got " + std::to_string(o.length), error_code::kInvalidArgument,
                 "length"};
  return std::unique_ptr<Task>(new ParensTask(o.length));
}

Made make_text(const TaskOptions& o) {
  std::vector<std::string> tokens;
  if (o.words) {
    Result<std::vector<std::string>> words = tokenize(o.text, 1 << 20);
    if (!words) return Error{"text: " + words.error(), error_code::kInvalidArgument, "text"};
    tokens = std::move(words.value());
  } else {
    tokens = characters(o.text);
  }
  if (static_cast<int>(tokens.size()) < 2 * (o.length + 1))
    return Error{"text has " + std::to_string(tokens.size()) + " tokens; with length " + std::to_string(o.length) +
                     " it needs at least " + std::to_string(2 * (o.length + 1)),
                 error_code::kOutOfRange, "text"};
  std::map<std::string, int> index;
  std::vector<std::string> vocabulary;
  std::vector<int> ids;
  for (const std::string& t : tokens) {
    auto [it, fresh] = index.emplace(t, static_cast<int>(vocabulary.size()));
    if (fresh) vocabulary.push_back(t);
    ids.push_back(it->second);
  }
  return std::unique_ptr<Task>(new TextTask(std::move(ids), std::move(vocabulary), o.length));
}

// Every task, declared once: its name, what task_infos() says of it, and how it is made.
// The schema's choices, the engine's description and make_task derive from this table.
struct TaskEntry {
  TaskInfo info;
  Made (*make)(const TaskOptions&);
  bool other_lengths = true;  // evalLength applies (modadd has one length; text's held-out windows would overlap
                              // the training text at another length)
};
const std::vector<TaskEntry>& task_entries() {
  static const std::vector<TaskEntry> entries = {
      {{"copy", "items 0..symbols-1 and '|'", "x_1 .. x_n | x_1 .. x_n; the second half is scored",
        "each answer position attends to the item n+1 places back (an offset head)"},
       make_copy},
      {{"reverse", "items 0..symbols-1 and '|'", "x_1 .. x_n | x_n .. x_1; the second half is scored",
        "answer i attends to item n+1-i: a reverse diagonal"},
       make_reverse},
      {{"sort", "items 0..symbols-1 and '|'", "x_1 .. x_n | the same items sorted; the second half is scored",
        "each answer attends to the smallest item not yet written (content and position together)"},
       make_sort},
      {{"recall", "keys a.., values 0.., '?'", "k_1 v_1 .. k_n v_n ? k_q; the last position is scored (v_q)",
        "the query key attends to its earlier copy, whose next token is the value (an induction-like head)"},
       make_recall},
      {{"induction", "items 0..symbols-1",
        "filler, r_1 .. r_L, filler, r_1 .. r_L, filler in 2 x length tokens; L, the start and the gap vary per "
        "example; the repeat is scored (r_i -> r_{i+1})",
        "a previous-token head in layer 0 and an induction head in layer 1"},
       make_induction},
      {{"modadd", "0..p-1, '+', '='", "a + b = ; the last position is scored ((a + b) mod p); 1 in 5 pairs held out",
        "the '=' position attends to a and b; the MLP computes the sum"},
       make_modadd,
       false},
      {{"parens", "'(', ')', '?', yes, no", "n parentheses ? ; the last position is scored (balanced: yes / no)",
        "broad, uniform-like heads that count opens and closes"},
       make_parens},
      {{"text", "the text's characters (or words)", "windows of the text; every next token is scored",
        "previous-token and n-gram heads"},
       make_text,
       false},
  };
  return entries;
}

}  // namespace

const std::vector<TaskInfo>& task_infos() {
  static const std::vector<TaskInfo> infos = [] {
    std::vector<TaskInfo> out;
    for (const TaskEntry& e : task_entries()) out.push_back(e.info);
    return out;
  }();
  return infos;
}

std::vector<std::string> task_names() {
  std::vector<std::string> names;
  for (const TaskEntry& e : task_entries()) names.push_back(e.info.name);
  return names;
}

Result<std::unique_ptr<Task>> make_task(const TaskOptions& o) {
  if (Status s = check(task_schema(), o); !s) return s.error_value();
  for (const TaskEntry& e : task_entries()) {
    if (o.name != e.info.name) continue;
    if (o.eval_length != 0 && !e.other_lengths)
      return Error{o.name + " has no evalLength (its held-out examples have the training length): use 0",
                   error_code::kInvalidArgument, "evalLength"};
    Made training = e.make(o);
    if (!training || o.eval_length == 0 || o.eval_length == o.length) return training;
    TaskOptions longer = o;
    longer.length = o.eval_length;
    Made held_out = e.make(longer);
    if (!held_out) {
      const Error& why = held_out.error_value();
      return Error{"evalLength " + std::to_string(o.eval_length) + ": " + why.message, why.code,
                   why.field == "length" ? "evalLength" : why.field};
    }
    return std::unique_ptr<Task>(new OtherLengthHeldOut(std::move(training.value()), std::move(held_out.value())));
  }
  return Error{"unknown task '" + o.name + "'", error_code::kInvalidArgument, "name"};  // the schema refused it already
}

}  // namespace attention
