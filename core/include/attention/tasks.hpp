#pragma once
// Seeded training tasks for a causal (decoder-only) model: each example is one
// sequence of ids with the targets to predict (-100 where nothing is scored), so
// training is next-token prediction on the scored positions. Each task documents its
// vocabulary, its format and the attention pattern that solves it (task_infos()).
// A held-out evaluation set is a fixed part of the example space: an example belongs
// to it by a hash of its ids, and training never draws one. With evalLength, held-out
// examples are made with that length instead (train on n items, evaluate on 2n: length
// generalisation).
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "attention/random.hpp"
#include "attention/result.hpp"
#include "attention/settings.hpp"

namespace attention {

struct TaskOptions {
  std::string name = "sort";  // copy, reverse, sort, recall, induction, modadd, parens, text
  int length = 8;       // items per example (copy/reverse/sort: the list; induction: half the sequence; recall: pairs;
                        // parens: symbols)
  int symbols = 10;     // distinct items (copy/reverse/sort/induction/recall keys and values)
  int modulus = 13;     // modadd: p
  std::string text;     // text: what to learn to continue
  bool words = false;   // text: tokens are words (else characters)
  int eval_length = 0;  // held-out examples' length (as `length` counts); 0 = length
};

struct TaskInfo {
  const char* name;
  const char* vocabulary;
  const char* format;
  const char* pattern;  // which attention pattern solves it
};
const std::vector<TaskInfo>& task_infos();
std::vector<std::string> task_names();  // task_infos()' names, in order: the choices of TaskOptions::name

struct Example {
  std::vector<int> ids;      // (S)
  std::vector<int> targets;  // (S), -100 = not scored
};

class Task {
 public:
  virtual ~Task() = default;
  virtual int vocab_size() const = 0;
  // The longest example's tokens: what the model's maxSeq must cover.
  virtual int seq_len() const = 0;
  // Training examples' tokens (held-out ones have their own length with evalLength).
  virtual int train_seq_len() const { return seq_len(); }
  virtual std::string token_text(int id) const = 0;  // for display
  // An example of the training or of the held-out part.
  virtual Example draw(SplitMix64& rng, bool held_out) const;
  // The examples evaluate() scores: `count` held-out ones drawn from the seed.
  virtual std::vector<Example> evaluation_set(std::uint64_t seed, int count) const;

 protected:
  virtual Example generate(SplitMix64& rng) const = 0;
  // Tasks with few possible examples (modadd) split by example; the rest by a hash.
  virtual bool in_held_out(const Example& example) const;
};

// Settings of a task, declared once (with their ranges and help).
const Schema<TaskOptions>& task_schema();

// A task from its options; errors name the bad option (e.g. text too short).
Result<std::unique_ptr<Task>> make_task(const TaskOptions& options);

// The caller's own data as a task: `batch` sequences of `seq` ids with their targets
// (-100 = not scored). Steps draw sequences from it at random; evaluate() scores all of it.
Result<std::unique_ptr<Task>> make_data_task(const std::vector<int>& ids, const std::vector<int>& targets, int batch,
                                             int seq, int vocab_size);

}  // namespace attention
