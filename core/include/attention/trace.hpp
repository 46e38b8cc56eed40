#pragma once
// The Trace is what a forward pass leaves behind for the UI: every stage of every
// layer, in the order it was computed, with its name, axis names, shape and data.
// Attention stages keep the head axis H inside the tensor, so one stage holds
// every head (e.g. weights: (B, H, Sq, Sk)).
#include <string>
#include <utility>
#include <vector>

#include "attention/tensor.hpp"

namespace attention {

struct Stage {
  int layer = -1;    // -1 for stages outside the layers (embeddings, positions)
  std::string name;  // e.g. "encoder.self_attn.weights"
  Tensor tensor;
};

struct Trace {
  std::vector<std::vector<std::string>> tokens;         // per sequence of the batch, unpadded
  std::vector<std::vector<std::string>> source_tokens;  // cross mode only
  std::vector<Stage> stages;

  // First stage with this layer and name, or nullptr.
  const Stage* find(int layer, const std::string& name) const;
};

// Hands stages to a Trace under a name prefix; does nothing without a Trace, so
// the same code path serves traced and untraced calls.
class Recorder {
 public:
  Recorder() = default;
  Recorder(Trace* trace, int layer, std::string prefix)
      : trace_(trace), layer_(layer), prefix_(std::move(prefix)) {}

  bool active() const { return trace_ != nullptr; }
  void record(const std::string& name, const Tensor& tensor) const {
    if (trace_) trace_->stages.push_back(Stage{layer_, prefix_ + name, tensor});
  }
  // For tensors the caller no longer needs: no copy.
  void record(const std::string& name, Tensor&& tensor) const {
    if (trace_) trace_->stages.push_back(Stage{layer_, prefix_ + name, std::move(tensor)});
  }
  // A recorder for a sub-block: "encoder." + "self_attn." ...
  Recorder child(const std::string& part) const { return Recorder(trace_, layer_, prefix_ + part + "."); }

 private:
  Trace* trace_ = nullptr;
  int layer_ = -1;
  std::string prefix_;
};

}  // namespace attention
