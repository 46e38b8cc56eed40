#pragma once
// The patching handle (model.patch in the TypeScript API): a core PatchingRun
// (attention/analysis/patching.hpp) with the model it reads kept alive, stepped from JS so
// the facade can report progress and stop between chunks. Not in the element's light engine.
#include <emscripten/val.h>

#include <memory>
#include <optional>

#include "attention/analysis/patching.hpp"
#include "model_handle.hpp"

namespace attention::js {

class PatchingHandle {
 public:
  // options: { clean: Int32Array (S), corrupted: Int32Array (S), position (-1 = last), good,
  // bad, over: 'resid' | 'heads', method: 'exact' | 'attribution' } (checked by
  // wasm/src/patching.ts first; the core checks again). Runs both prompts once.
  PatchingHandle(const ModelHandle& model, val options);
  // undefined, or { error } when the options were refused.
  val error() const { return failure_; }
  // One chunk: { done, total } or { error }.
  val step();
  // { rows, columns, recovered: Float32Array (rows, columns), cleanDiff, corruptedDiff }.
  val result() const;

 private:
  std::shared_ptr<Transformer> model_;
  std::optional<PatchingRun> run_;
  val failure_;
};

// model.startPatching(options): a new handle owned by JS (delete() it).
PatchingHandle* start_patching_js(ModelHandle& model, val options);

}  // namespace attention::js
