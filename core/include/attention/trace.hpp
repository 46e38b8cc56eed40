#pragma once
// The Trace is what a forward pass leaves behind for the UI: the chosen stages of
// every layer, in the order they were computed, each with its name, kind, axis
// names, shape and data. Attention stages keep the head axis H inside the tensor, so
// one stage holds every head (e.g. weights: (B, H, Sq, Sk)).
//
// Stage names come from one registry (stage_registry()), which the TypeScript side
// receives from the engine. A full name is the registry name under its scope's prefix:
//   stack scope      "<stack>.<name>"            layer -1, e.g. "encoder.input"
//   layer scope      "<stack>.<name>"            e.g. "decoder.norm2"
//   attention scope  "<stack>.<block>.<name>"    e.g. "encoder.self_attn.weights"
//   model scope      "<name>"                    layer -1, e.g. "logits"
// where <stack> is "encoder" or "decoder" and <block> "self_attn" or "cross_attn".
#include <string>
#include <utility>
#include <vector>

#include "attention/tensor.hpp"

namespace attention {

// The stacks and attention blocks of a trace, named once: the forward passes record under
// these names, and the engine's description lists the blocks (kAttentionBlocks) with the
// playground modes whose trace holds each, so the TypeScript side derives its own list.
inline constexpr const char* kEncoderStack = "encoder";
inline constexpr const char* kDecoderStack = "decoder";
inline constexpr const char* kSelfAttention = "self_attn";
inline constexpr const char* kCrossAttention = "cross_attn";
struct AttentionBlockInfo {
  const char* stack;
  const char* block;
  const char* modes;  // comma-separated playground modes that have it
};
// In the order a view prefers them: each mode's own block comes first among the blocks of
// that mode (cross mode's is the cross-attention).
inline constexpr AttentionBlockInfo kAttentionBlocks[] = {
    {kDecoderStack, kCrossAttention, "cross"},
    {kDecoderStack, kSelfAttention, "decoder,cross"},
    {kEncoderStack, kSelfAttention, "encoder,cross"},
};

enum class StageScope { Model, Stack, Layer, Attention };

enum class StageId {
  // stack
  PaddingMask,
  Embeddings,
  Positions,
  TokenTypes,
  Input,
  FinalNorm,
  // attention block
  QProj,
  KProj,
  VProj,
  QSplit,
  QHeads,
  KHeads,
  VHeads,
  KvGroup,
  QNormed,
  KNormed,
  QRotated,
  KRotated,
  MaskPadding,
  MaskCausal,
  MaskWindow,
  MaskUser,
  MaskAdditive,
  Alibi,
  Mask,
  Scores,
  Scaled,
  Masked,
  Weights,
  Context,
  Merged,
  AttnOutput,
  AttnActivated,
  // layer
  Norm1,
  Norm2,
  Norm3,
  PostNorm1,
  PostNorm2,
  PostNorm3,
  Residual1,
  Residual2,
  Residual3,
  FfnHidden,
  FfnGate,
  FfnUp,
  FfnActivated,
  FfnProduct,
  FfnOutput,
  LayerOutput,
  // model
  Logits,
};

struct StageInfo {
  StageId id;
  const char* name;  // relative to the scope's prefix
  StageScope scope;
  const char* kind;  // what the numbers are: "mask", "embeddings", "activations", "projection", "heads",
                     // "scores", "weights", "context", "norm", "residual", "ffn", "logits"
  const char* mask;  // for masks: "padding", "causal", "window", "user", "additive" or "combined"; else ""
  const char* axes;  // axis names, e.g. "B,H,Sq,Sk"
  const char* help;  // one line for a person
};

// Every stage a forward pass can record, in computation order within a layer.
const std::vector<StageInfo>& stage_registry();
const StageInfo& stage_info(StageId id);
const char* to_string(StageScope scope);

struct Stage {
  int layer = -1;    // -1 for stages outside the layers (embeddings, positions, logits)
  std::string name;  // full name, e.g. "encoder.self_attn.weights"
  StageId id = StageId::Input;
  Tensor tensor;
};

// Which stages a forward pass keeps. Patterns are full stage names with '*' matching
// any run of characters ("*.weights", "encoder.*"); no patterns = every stage. Layers
// restrict the stages inside layers (stages at layer -1 are not filtered by layer).
struct RecordFilter {
  std::vector<std::string> patterns;
  std::vector<int> layers;
  bool matches(int layer, const std::string& name) const;
};

struct Trace {
  std::vector<std::vector<std::string>> tokens;         // per sequence of the batch, unpadded
  std::vector<std::vector<std::string>> source_tokens;  // encoder–decoder only
  std::vector<Stage> stages;

  // First stage with this layer and name, or nullptr.
  const Stage* find(int layer, const std::string& name) const;
};

// Hands stages to a Trace under a name prefix; does nothing without a Trace, so the
// same code path serves traced and untraced calls. A filter, if given, keeps only the
// stages it matches.
class Recorder {
 public:
  Recorder() = default;
  Recorder(Trace* trace, int layer, std::string prefix, const RecordFilter* filter = nullptr)
      : trace_(trace), layer_(layer), prefix_(std::move(prefix)), filter_(filter) {}

  bool active() const { return trace_ != nullptr; }
  // Whether record(id, ...) would keep the stage (so the caller can skip building it).
  bool wants(StageId id) const;
  void record(StageId id, const Tensor& tensor) const {
    if (wants(id)) trace_->stages.push_back(Stage{layer_, full_name(id), id, tensor});
  }
  // For tensors the caller no longer needs: no copy.
  void record(StageId id, Tensor&& tensor) const {
    if (wants(id)) trace_->stages.push_back(Stage{layer_, full_name(id), id, std::move(tensor)});
  }
  // A recorder for a sub-block: "encoder." + "self_attn." ...
  Recorder child(const std::string& part) const { return Recorder(trace_, layer_, prefix_ + part + ".", filter_); }

 private:
  std::string full_name(StageId id) const { return prefix_ + stage_info(id).name; }
  Trace* trace_ = nullptr;
  int layer_ = -1;
  std::string prefix_;
  const RecordFilter* filter_ = nullptr;
};

}  // namespace attention
