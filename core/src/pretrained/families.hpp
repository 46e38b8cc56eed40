#pragma once
// The registry of checkpoint families (private to core/src/pretrained). Each family is one
// declaration: its model_type and tokenizer (FamilyInfo), how its config.json becomes a
// ModelSpec, which config key stands behind each spec field (for messages), and, for the
// modern decoder families, the rules their hub tensor names follow (ModernFamily).
// family_infos(), read_config(), the tensor-name tables and the engine's description all
// derive from it.
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "attention/pretrained.hpp"

namespace attention::pretrained {

// Where a setting of the Hugging Face classes comes from.
enum class BiasRule { Never, Always, AttentionBias };  // none; always (Qwen 2's q/k/v); config attention_bias
enum class LayerRule {
  None,             // every layer full (Llama)
  MaxWindowLayers,  // use_sliding_window: layers i >= max_window_layers slide (Qwen 2 / 3)
  SlidingPattern,   // layer i full when (i + 1) % sliding_window_pattern == 0 (Gemma 3)
  AllSliding,       // every layer slides when sliding_window is set (Mistral)
};

// A modern decoder family (Llama, Qwen 2 / 3, Gemma 3, Mistral), as its configuration class
// and modelling code define it. Sizes are the class defaults (0 = derived, as the class does);
// the member defaults are what most of the classes share.
struct ModernFamily {
  const char* config_class = "";  // for messages: "LlamaConfig"
  int vocab_size = 0, hidden_size = 0, intermediate_size = 0, layers = 0, heads = 0;
  int kv_heads = 0;  // 0 = num_attention_heads
  int head_dim = 0;  // 0 = hidden_size / num_attention_heads
  int max_positions = 0;
  double rope_theta = 10000.0;
  bool tied = false;
  int pad_token_id = -1;  // -1 = none
  const char* activation_key = "hidden_act";
  const char* activation = "silu";
  BiasRule qkv_bias = BiasRule::Never, out_bias = BiasRule::Never;
  bool mlp_bias_key = false;  // Llama's mlp_bias (else no MLP biases)
  bool qk_norm = false;       // q_norm / k_norm (Qwen 3, Gemma 3)
  // Gemma 3: (1 + w) RMSNorms, sandwich norms, embeddings * sqrt(E), query_pre_attn_scalar,
  // rope_local_base_freq for sliding layers, the softcapping and bidirectional keys.
  bool gemma = false;
  LayerRule layer_rule = LayerRule::None;
  int max_window_layers = 0;  // MaxWindowLayers: the default
  int sliding_window = 0;     // the default (0 = null)
  // The multimodal wrapper (Gemma3ForConditionalGeneration): the text model's family, read
  // from config.json's text_config; nullptr for a text-only family.
  const ModernFamily* text_family = nullptr;
  // Hub name prefixes rewritten to the text model's (e.g. "language_model.model." -> "model."),
  // and prefixes of tensors skipped by name with the reason.
  std::vector<std::pair<std::string, std::string>> renames;
  std::vector<std::pair<std::string, std::string>> skips;
};

using ReadConfig = Result<HubConfig> (*)(const nlohmann::json& config, HubConfig out, const ModernFamily* modern);
using ConfigKey = std::string (*)(const std::string& spec_field);

struct FamilyEntry {
  FamilyInfo info;
  ReadConfig read;
  ConfigKey config_key;
  const ModernFamily* modern;  // nullptr for GPT-2 and BERT
};

// Every family, GPT-2 and BERT first (hub_config.cpp), then the modern ones.
const std::vector<FamilyEntry>& family_entries();
const FamilyEntry& family_entry(Family family);

// The modern families' entries (modern_config.cpp).
const std::vector<FamilyEntry>& modern_family_entries();

}  // namespace attention::pretrained
