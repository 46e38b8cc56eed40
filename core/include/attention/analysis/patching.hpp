#pragma once
// Activation patching: how much of a behaviour one activation carries. Two prompts of the
// same length S, a clean one and a corrupted one (one name swapped), and a metric, the
// logit difference d = logit[good] - logit[bad] at one position. Each patch copies one
// activation of the clean run into the corrupted run and reads d again; the share recovered
//   r = (d_patched - d_corrupted) / (d_clean - d_corrupted)
// is 1 when the patch restores the clean behaviour and 0 when it changes nothing.
//   over Resid: the residual stream entering layer l at position p    -> r (L, S)
//   over Heads: head h's context (weights x V, (S, d_h) at every position, before out_proj)
//               at layer l                                             -> r (L, H)
// Exact: the corrupted run's residual entering each layer is cached, and each patch reruns
// only layers l..L-1 from it; one layer's patches (S positions or H heads) run as one batch.
// Attribution (Nanda's attribution patching): the first-order estimate
//   d_patched - d_corrupted ~ (a_clean - a_corrupted) . grad_a d   at the corrupted run,
// from one forward of each prompt and one backward of d through the engine's backward pass
// (core/src/train/layer_backprop.hpp); for 'resid' the product is summed over E, for 'heads'
// over every position and d_h of the head.
// Single stacks with an output head, causal or not: GPT-2, BERT (its MLM head's transform is
// read through, forward and backward), the hub's causal LMs, the playground's models. An
// encoder–decoder or a model without a head is refused (field "model"), and so are 16- and
// 8-bit weights (read_only: the layers run training's float32 arithmetic).
#include <memory>
#include <string>
#include <vector>

#include "attention/result.hpp"
#include "attention/transformer.hpp"

namespace attention {

enum class PatchOver { Resid, Heads };
enum class PatchMethod { Exact, Attribution };

// "resid" / "heads" (field "over"); "exact" / "attribution" (field "method").
Result<PatchOver> parse_patch_over(const std::string& name);
Result<PatchMethod> parse_patch_method(const std::string& name);

struct PatchingOptions {
  std::vector<int> clean, corrupted;  // (S) each
  int position = -1;                  // 0..S-1; -1 = the last
  int good = 0, bad = 0;              // the metric: logit[good] - logit[bad] at position
  PatchOver over = PatchOver::Resid;
  PatchMethod method = PatchMethod::Exact;
};

struct Patching {
  int rows = 0, columns = 0;     // L, and S (resid) or H (heads)
  std::vector<float> recovered;  // (rows, columns): r above
  float clean_diff = 0;          // d on the clean prompt
  float corrupted_diff = 0;      // d on the corrupted prompt
};

// A patching run in steps, so a caller can report progress and stop between them. start()
// checks the options and runs both prompts once (the cached prefix); each step() then does
// one chunk: exact, one layer's patches; attribution, the backward. The model is never
// written: attribution's backward sets its parameters' gradients aside and puts them back.
// It must outlive the run.
class PatchingRun {
 public:
  // Errors: "model" (an encoder–decoder, no head), read_only (low-bit weights),
  // "corrupted" (a different length: shape_mismatch), "clean" / "corrupted" (ids out of the
  // vocabulary, too long), "position", "tokens" (out_of_range; or the same difference on both
  // prompts, which leaves nothing to recover), the forward pass's memory limit.
  static Result<PatchingRun> start(const Transformer& model, const PatchingOptions& options);

  int total_steps() const;
  int done_steps() const { return done_; }
  bool done() const { return done_ == total_steps(); }
  // One chunk; past the last it does nothing.
  Status step();
  // Complete once done(); before, the chunks not yet run are 0.
  const Patching& result() const { return result_; }

  struct Activations {
    std::vector<std::vector<float>> resid;   // (L) each (S, E): entering layer l
    std::vector<std::vector<float>> merged;  // (L) each (S, H d_h): the heads' contexts
  };
  struct Tape;  // the corrupted run's, for attribution's backward (opaque: patching.cpp)

 private:
  PatchingRun() = default;
  const Transformer* model_ = nullptr;
  std::shared_ptr<Tape> tape_;
  PatchingOptions options_;
  int seq_ = 0, position_ = 0, done_ = 0;
  Activations clean_, corrupted_;
  Patching result_;
};

// The whole run at once.
Result<Patching> activation_patching(const Transformer& model, const PatchingOptions& options);

}  // namespace attention
