#pragma once
// The model handle (engine.createModel / loadPretrained in the TypeScript API) and the
// readers of forward-pass arguments it shares with the trainer handle.
#include <emscripten/val.h>

#include <memory>
#include <string>
#include <vector>

#include "attention/settings.hpp"
#include "attention/transformer.hpp"

namespace attention::js {

using emscripten::val;

// Text -> JSON, or an Error naming `what` (the argument).
Result<Json> parse_json(const std::string& text, const char* what);

// { batch, seq, ids, lengths?, tokenTypes?, sourceIds?, sourceSeq?, sourceLengths? }
ForwardInput read_forward_input(const val& in);

// Heads to switch off, [{ layer, head }] (checked by the TypeScript side and the core).
std::vector<HeadRef> read_heads(const val& list);

// A transformer living in the engine until the TypeScript side deletes the handle.
class ModelHandle {
 public:
  ModelHandle(std::string spec_json, std::string init, double seed);
  // A model built elsewhere (a loaded checkpoint).
  explicit ModelHandle(Transformer model);
  val error() const { return failure_; }
  std::string spec_json() const;
  std::string parameters_json() const;
  val parameter(std::string name);
  val load_weights(val bytes);
  val save_weights() const;
  // { total, f32, bf16, f16, q8_0 }: bytes of parameter values held, by storage.
  val weight_bytes() const;
  val forward(val in) const;
  // forward() with the ablations already read (the head tools' forwardAblated adds MLPs and means).
  val forward_with(const val& in, ForwardOptions options) const;
  const std::shared_ptr<Transformer>& shared() const { return model_; }

 private:
  std::shared_ptr<Transformer> model_;
  val failure_;
};

}  // namespace attention::js
