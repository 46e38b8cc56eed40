#pragma once
// The playground model: text in, full Trace out.
//   encoder: texts -> tokens -> ids -> embeddings + positions -> `layers` encoder layers
//   decoder: the same stack with causal self-attention (a decoder-only model)
//   cross:   source texts -> encoder stack -> memory; texts (the target) -> decoder
//            layers with causal self-attention and cross-attention over memory
// It is a Transformer (transformer.hpp) of playground_spec(config) whose parameters
// the config's preset fills; its embedding table is made for each run from the
// vocabulary of the typed texts (untrained per-word vectors, embeddings.hpp).
// Stage names start with the stack: "encoder." or "decoder.", e.g.
// "encoder.self_attn.weights" at layer 0, or "decoder.cross_attn.weights".
#include <optional>
#include <string>
#include <vector>

#include "attention/config.hpp"
#include "attention/presets.hpp"
#include "attention/result.hpp"
#include "attention/trace.hpp"
#include "attention/transformer.hpp"

namespace attention {

// A model built once from a config (its weights made, or the config's error kept)
// and run on any number of texts: the playground reruns it on every keystroke.
class Model {
 public:
  explicit Model(const ModelConfig& config);
  const ModelConfig& config() const { return config_; }
  // Not const: each run installs the embedding table of its texts' vocabulary.
  Result<Trace> run(const std::vector<std::string>& texts, const std::vector<std::string>& source_texts = {});

 private:
  ModelConfig config_;
  Status valid_;
  std::optional<Transformer> model_;
};

// texts: one sentence per sequence of the batch. source_texts: the encoder's input
// in cross mode (one per text), ignored in the other modes. Same as Model(config).run(...).
Result<Trace> run_model(const ModelConfig& config, const std::vector<std::string>& texts,
                        const std::vector<std::string>& source_texts = {});

}  // namespace attention
