#pragma once
// The hub name of every tensor a checkpoint of a family stores, and where its values go
// in the engine's model (private to core/src/pretrained).
#include <map>
#include <string>
#include <vector>

#include "attention/pretrained.hpp"

namespace attention::pretrained {

// Where one hub tensor lands: rows [row_begin, row_begin + hub rows) of a parameter
// (the whole parameter for most; a third of in_proj for BERT's query / key / value),
// transposed first when the hub stores it (in, out) as GPT-2's Conv1D does.
struct HubTarget {
  Parameter* parameter = nullptr;
  std::vector<int> hub_shape;  // the shape the file must give
  int row_begin = 0;           // first row (or element, for a 1-D parameter) written
  bool transpose = false;      // hub (in, out) -> engine (out, in)
  int slot = 0;                // aliases of one tensor share a slot (filled once)
  // For a second name of a slot: why the two names are one tensor (a file may store both;
  // their values must then be equal, else the load fails with code tied_mismatch).
  std::string alias_of;
};

// Every hub name of `family` for `model`, under the canonical names (no class prefix,
// LayerNorm weight/bias), and slot_names[s]: the first (main) name of slot s.
std::map<std::string, HubTarget> hub_targets(Family family, Transformer& model, std::vector<std::string>& slot_names);

// A hub name as written -> the canonical name: the class prefix dropped ("transformer."
// for GPT-2, "bert." for BERT, the multimodal Gemma 3's language-model prefixes rewritten
// to "model." / "lm_head."), BERT's legacy "LayerNorm.gamma" / ".beta" renamed.
std::string canonical_name(Family family, const std::string& name);

// Why a canonical name is skipped, or "" when it is not one of the known extras.
std::string skip_reason(Family family, const ModelSpec& spec, const std::string& canonical);

// Parameters the hub never stores, filled by the loader (GPT-2's tied head has no bias:
// head.bias stays 0).
std::vector<Parameter*> implicit_zero_parameters(Family family, Transformer& model);

}  // namespace attention::pretrained
