// The modern decoder families (Llama, Qwen 2, Qwen 3, Gemma 3 text and multimodal, Mistral):
// their declarations and config.json -> ModelSpec. Keys, defaults and meanings follow
// transformers' configuration_*.py and modeling_*.py (LlamaConfig, Qwen2Config, Qwen3Config,
// Gemma3TextConfig / Gemma3Config, MistralConfig; modeling_rope_utils.py for rope_scaling).
// A key the class reads with a value the engine cannot compute as the modelling code does is
// an Error naming the key; keys the classes read that do not change the forward (dtype, token
// ids, cache, dropout at inference, initializer_range, pretraining_tp, ...) are accepted, and
// so are keys the classes do not read (transformers ignores them too).
#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "attention/pretrained.hpp"
#include "config_values.hpp"
#include "families.hpp"

namespace attention::pretrained {

namespace {

using namespace config_values;
using error_code::kBadFile;
using error_code::kInvalidArgument;

#define TRY_ASSIGN ATTENTION_TRY_ASSIGN

// The keys of one JSON object (config.json, or its text_config), named with their prefix.
struct Keys {
  const Json& j;
  std::string prefix;

  bool set(const std::string& key) const { return j.contains(key) && !j[key].is_null(); }
  Result<int> whole(const std::string& key, int fallback, bool null_ok = false) const {
    return integer(j, key, fallback, null_ok, prefix);
  }
  Result<double> real(const std::string& key, double fallback) const { return number(j, key, fallback, prefix); }
  Result<bool> flag(const std::string& key, bool fallback) const { return boolean(j, key, fallback, prefix); }
  Result<std::string> word(const std::string& key, const std::string& fallback) const {
    return text(j, key, fallback, prefix);
  }
  Error error(const std::string& key, const std::string& problem, const char* code = kInvalidArgument) const {
    return config_error(prefix + key, problem, code);
  }
};

std::string number_text(double v) {
  Json n = v;
  return n.dump();
}

// rope_scaling (transformers 4) or one rope_parameters dict (transformers 5) -> the spec's
// scaling. `key` names the dict in messages ("rope_scaling", "rope_parameters.full_attention").
// Types: default (none), linear (factor), llama3 (factor, low_freq_factor, high_freq_factor,
// original_max_position_embeddings); any other type, a missing field or a field the type
// does not use is an Error naming it.
Status read_rope_scaling(const Keys& k, const std::string& key, const Json& rs, ModelSpec& s,
                         bool theta_inside = false) {
  s.rope_scaling = RopeScaling::None;
  if (rs.is_null()) return Ok{};
  if (!rs.is_object()) return k.error(key, "must be an object or null, got " + rs.dump(), kBadFile);
  const Keys r{rs, k.prefix + key + "."};
  const char* type_key = rs.contains("rope_type") ? "rope_type" : "type";
  std::string type;
  TRY_ASSIGN(type, r.word(type_key, ""));
  if (type.empty()) return r.error("rope_type", "is missing; it says how RoPE is scaled (default, linear or llama3)");
  std::set<std::string> used = {"rope_type", "type"};
  if (theta_inside) used.insert("rope_theta");
  if (type == "default") {
  } else if (type == "linear") {
    s.rope_scaling = RopeScaling::Linear;
    used.insert("factor");
  } else if (type == "llama3") {
    s.rope_scaling = RopeScaling::Llama3;
    used.insert({"factor", "low_freq_factor", "high_freq_factor", "original_max_position_embeddings"});
  } else {
    return r.error(type_key, "is \"" + type +
                                 "\"; the engine scales RoPE as default, linear and llama3 (not dynamic, yarn, "
                                 "longrope or others)");
  }
  for (auto it = rs.begin(); it != rs.end(); ++it)
    if (!used.count(it.key()))
      return r.error(it.key(), "is not a field of rope_type " + type + "; the engine would not use it");
  for (const char* needed : {"factor", "low_freq_factor", "high_freq_factor", "original_max_position_embeddings"})
    if (used.count(needed) && !rs.contains(needed))
      return r.error(needed, std::string("is missing; rope_type ") + type + " needs it");
  if (s.rope_scaling == RopeScaling::None) return Ok{};
  TRY_ASSIGN(s.rope_factor, r.real("factor", 1.0));
  if (s.rope_scaling == RopeScaling::Llama3) {
    TRY_ASSIGN(s.rope_low_freq_factor, r.real("low_freq_factor", 1.0));
    TRY_ASSIGN(s.rope_high_freq_factor, r.real("high_freq_factor", 4.0));
    TRY_ASSIGN(s.rope_original_context, r.whole("original_max_position_embeddings", 8192));
  }
  return Ok{};
}

// RoPE: rope_theta and rope_scaling, or transformers 5's rope_parameters (one dict, or for
// Gemma 3 one per layer type). Returns the local layers' base for Gemma 3 (0 otherwise).
Result<double> read_rope(const Keys& k, const ModernFamily& f, ModelSpec& s) {
  TRY_ASSIGN(s.rope_theta, k.real("rope_theta", f.rope_theta));
  double local = 0.0;
  if (f.gemma) TRY_ASSIGN(local, k.real("rope_local_base_freq", 10000.0));
  if (k.set("rope_parameters")) {
    const Json& p = k.j["rope_parameters"];
    if (!p.is_object()) return k.error("rope_parameters", "must be an object, got " + p.dump(), kBadFile);
    const auto one = [&](const std::string& key, const Json& dict, double& theta) -> Status {
      if (!dict.is_object()) return k.error(key, "must be an object, got " + dict.dump(), kBadFile);
      const Keys d{dict, k.prefix + key + "."};
      TRY_ASSIGN(theta, d.real("rope_theta", theta));
      return read_rope_scaling(k, key, dict, s, /*theta_inside=*/true);
    };
    if (!f.gemma) {
      if (Status st = one("rope_parameters", p, s.rope_theta); !st) return st.error_value();
    } else {
      for (auto it = p.begin(); it != p.end(); ++it)
        if (it.key() != "full_attention" && it.key() != "sliding_attention")
          return k.error("rope_parameters." + it.key(), "is not a layer type (full_attention, sliding_attention)");
      if (p.contains("sliding_attention")) {
        if (Status st = one("rope_parameters.sliding_attention", p["sliding_attention"], local); !st)
          return st.error_value();
        if (s.rope_scaling != RopeScaling::None)  // the engine's local layers rotate unscaled, as Gemma 3's
          return k.error("rope_parameters.sliding_attention.rope_type",
                         "scales the sliding layers' RoPE; the engine scales the full layers' only");
      }
      if (p.contains("full_attention"))
        if (Status st = one("rope_parameters.full_attention", p["full_attention"], s.rope_theta); !st)
          return st.error_value();
    }
    return local;
  }
  if (k.j.contains("rope_scaling"))
    if (Status st = read_rope_scaling(k, "rope_scaling", k.j["rope_scaling"], s); !st) return st.error_value();
  return local;
}

// Which layers slide, as the class derives it (layer_types when given), and the key that
// decided it (for the message when the engine's windowPattern cannot express it).
struct LayerTypes {
  std::vector<bool> sliding;
  std::string source;
};

Result<LayerTypes> read_layer_types(const Keys& k, const ModernFamily& f, int layers, bool qwen_sliding_on) {
  LayerTypes out;
  out.sliding.assign(static_cast<std::size_t>(layers), false);
  if (k.set("layer_types")) {
    const Json& t = k.j["layer_types"];
    if (!t.is_array() || t.size() != static_cast<std::size_t>(layers))
      return k.error("layer_types",
                     "must list num_hidden_layers (" + std::to_string(layers) + ") layer types, got " + t.dump(),
                     kBadFile);
    for (std::size_t i = 0; i < t.size(); ++i) {
      if (t[i] == "sliding_attention")
        out.sliding[i] = true;
      else if (t[i] != "full_attention")
        return k.error("layer_types", "[" + std::to_string(i) + "] is " + t[i].dump() +
                                          "; the engine runs full_attention and sliding_attention layers");
    }
    out.source = "layer_types";
    return out;
  }
  switch (f.layer_rule) {
    case LayerRule::None:
      break;
    case LayerRule::MaxWindowLayers: {
      int from = 0;
      TRY_ASSIGN(from, k.whole("max_window_layers", f.max_window_layers));
      for (int i = 0; i < layers; ++i) out.sliding[static_cast<std::size_t>(i)] = qwen_sliding_on && i >= from;
      out.source = "max_window_layers";
      break;
    }
    case LayerRule::SlidingPattern: {
      const char* key = k.j.contains("sliding_window_pattern") ? "sliding_window_pattern" : "_sliding_window_pattern";
      int n = 6;
      TRY_ASSIGN(n, k.whole(key, 6));
      if (n < 1) return k.error(key, "is " + std::to_string(n) + "; it must be at least 1", error_code::kOutOfRange);
      for (int i = 0; i < layers; ++i) out.sliding[static_cast<std::size_t>(i)] = (i + 1) % n != 0;
      out.source = key;
      break;
    }
    case LayerRule::AllSliding:
      for (int i = 0; i < layers; ++i) out.sliding[static_cast<std::size_t>(i)] = k.set("sliding_window");
      out.source = "sliding_window";
      break;
  }
  return out;
}

// The sliding layers as the spec's window and windowPattern: all or none slide, or every
// Nth layer is full (N > 1). Anything else is an Error naming the key that chose the layers.
Status fit_window(const Keys& k, const LayerTypes& types, int window, ModelSpec& s) {
  const auto& sl = types.sliding;
  const std::size_t n_sliding = static_cast<std::size_t>(std::count(sl.begin(), sl.end(), true));
  s.window = 0;
  s.window_pattern = 0;
  if (n_sliding == 0) return Ok{};
  if (window < 1)
    return k.error("sliding_window", "is " +
                                         (k.j.contains("sliding_window") ? k.j["sliding_window"].dump() : "not set") +
                                         ", but " + types.source + " makes " + std::to_string(n_sliding) +
                                         " layers sliding; they need a window of at least 1 token");
  s.window = window;
  if (n_sliding == sl.size()) return Ok{};
  for (int n = 2; n <= static_cast<int>(sl.size()) + 1; ++n) {
    bool fits = true;
    for (std::size_t i = 0; i < sl.size() && fits; ++i) fits = sl[i] == ((static_cast<int>(i) + 1) % n != 0);
    if (fits) {
      s.window_pattern = n;
      return Ok{};
    }
  }
  std::string list;
  for (std::size_t i = 0; i < sl.size(); ++i) list += sl[i] ? "S" : "F";
  return k.error(types.source, "gives the layers " + list +
                                   " (S sliding, F full); the engine runs all layers sliding or every Nth layer "
                                   "full (windowPattern), not this order");
}

// One text model's config (config.json, or Gemma 3's text_config under `prefix`).
Result<HubConfig> read_text_model(const Json& j, HubConfig c, const ModernFamily& f, const std::string& prefix) {
  const Keys k{j, prefix};
  ModelSpec& s = c.spec;
  TRY_ASSIGN(s.vocab_size, k.whole("vocab_size", f.vocab_size));
  TRY_ASSIGN(s.d_model, k.whole("hidden_size", f.hidden_size));
  TRY_ASSIGN(s.ffn_dim, k.whole("intermediate_size", f.intermediate_size));
  TRY_ASSIGN(s.layers, k.whole("num_hidden_layers", f.layers));
  TRY_ASSIGN(s.heads, k.whole("num_attention_heads", f.heads));
  TRY_ASSIGN(s.kv_heads, k.whole("num_key_value_heads", f.kv_heads > 0 ? f.kv_heads : s.heads, /*null_ok=*/true));
  if (s.kv_heads == 0) s.kv_heads = s.heads;
  if (s.kv_heads < 1 || s.heads < 1)
    return k.error(s.heads < 1 ? "num_attention_heads" : "num_key_value_heads", "must be at least 1",
                   error_code::kOutOfRange);
  TRY_ASSIGN(s.head_dim_setting, k.whole("head_dim", f.head_dim, /*null_ok=*/true));
  if (s.head_dim_setting == 0) {  // hidden_size / num_attention_heads, as the attention module derives it
    if (s.d_model % s.heads != 0)
      return k.error("num_attention_heads",
                     "(" + std::to_string(s.heads) + ") must divide hidden_size (" + std::to_string(s.d_model) +
                         ") when head_dim is not given",
                     error_code::kNotDivisible);
    s.head_dim_setting = s.d_model / s.heads;
  }
  int max_positions = 0;
  TRY_ASSIGN(max_positions, k.whole("max_position_embeddings", f.max_positions));
  if (max_positions < 1)
    return k.error("max_position_embeddings", "is " + std::to_string(max_positions) + "; it must be at least 1",
                   error_code::kOutOfRange);
  // RoPE has no position table: max_position_embeddings only bounds the text, and the
  // engine reads at most maxSeq's limit of tokens.
  s.max_seq = std::min(max_positions, 8192);
  TRY_ASSIGN(s.layer_norm_eps, k.real("rms_norm_eps", 1e-6));
  std::string act;
  TRY_ASSIGN(act, k.word(f.activation_key, f.activation));
  TRY_ASSIGN(s.activation, activation(prefix + f.activation_key, act));

  bool attention_bias = false;
  if (f.qkv_bias == BiasRule::AttentionBias || f.out_bias == BiasRule::AttentionBias)
    TRY_ASSIGN(attention_bias, k.flag("attention_bias", false));
  const auto bias = [&](BiasRule r) {
    return r == BiasRule::Always || (r == BiasRule::AttentionBias && attention_bias);
  };
  s.qkv_bias = bias(f.qkv_bias);
  s.out_bias = bias(f.out_bias);
  s.mlp_bias = false;
  if (f.mlp_bias_key) TRY_ASSIGN(s.mlp_bias, k.flag("mlp_bias", false));
  s.head_bias = false;
  s.qk_norm = f.qk_norm;

  if (k.set("partial_rotary_factor")) {
    double fraction = 1.0;
    TRY_ASSIGN(fraction, k.real("partial_rotary_factor", 1.0));
    if (fraction != 1.0)
      return k.error("partial_rotary_factor", "is " + number_text(fraction) + "; " + f.config_class +
                                                  "'s models rotate every dimension of each head");
  }
  double local_theta = 0.0;
  TRY_ASSIGN(local_theta, read_rope(k, f, s));

  bool tied = f.tied;
  TRY_ASSIGN(tied, k.flag("tie_word_embeddings", f.tied));
  s.head = tied ? OutputHead::Tied : OutputHead::Linear;
  s.positions = Positions::Rope;
  s.causal = true;
  s.final_norm = true;
  s.ffn = FfnKind::Gated;
  s.norm = f.gemma ? NormPlacement::Sandwich : NormPlacement::Pre;
  s.norm_type = f.gemma ? NormType::RmsNormOffset : NormType::RmsNorm;
  s.embed_scale = f.gemma;

  // Sliding windows.
  // Qwen: the class keeps sliding_window only with use_sliding_window, and the layers from
  // max_window_layers on slide only when it is then not null.
  bool qwen_sliding = false;
  if (f.layer_rule == LayerRule::MaxWindowLayers) TRY_ASSIGN(qwen_sliding, k.flag("use_sliding_window", false));
  const bool window_null = k.j.contains("sliding_window") && k.j["sliding_window"].is_null();
  int window = 0;
  TRY_ASSIGN(window, k.whole("sliding_window", f.sliding_window, /*null_ok=*/true));
  if (window_null) window = 0;
  if (f.layer_rule == LayerRule::MaxWindowLayers && !qwen_sliding) window = 0;  // the class drops it
  if (f.layer_rule == LayerRule::None) window = 0;                              // LlamaConfig has none
  LayerTypes types;
  TRY_ASSIGN(types, read_layer_types(k, f, s.layers, qwen_sliding && !window_null));

  if (f.gemma) {
    for (const char* key : {"attn_logit_softcapping", "final_logit_softcapping"})
      if (k.set(key))
        return k.error(key, "is " + k.j[key].dump() +
                                "; the engine does not soft-cap logits (tanh capping, Gemma 2's): only null is "
                                "supported");
    TRY_ASSIGN(s.query_pre_attn_scalar, k.real("query_pre_attn_scalar", 256.0));
    if (!(s.query_pre_attn_scalar > 0))
      return k.error("query_pre_attn_scalar", "is " + number_text(s.query_pre_attn_scalar) + "; it must be positive",
                     error_code::kOutOfRange);
    bool bidirectional = false;
    TRY_ASSIGN(bidirectional, k.flag("use_bidirectional_attention", false));
    if (bidirectional) {
      // Gemma3TextConfig stores sliding_window // 2 + 1 for an encoder and its mask then lets
      // |i - j| < that through: the engine's window without the causal mask, on the same value.
      s.causal = false;
      if (window > 0) window = window / 2 + 1;
    }
  }
  if (Status st = fit_window(k, types, window, s); !st) return st.error_value();
  s.rope_local_theta = f.gemma && s.window > 0 ? local_theta : 0.0;
  TRY_ASSIGN(c.pad_token_id, k.whole("pad_token_id", f.pad_token_id, /*null_ok=*/true));
  return c;
}

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

Result<HubConfig> modern_config(const Json& j, HubConfig c, const ModernFamily* modern) {
  const ModernFamily& f = *modern;
  const std::string& a = c.architecture;
  const char* head_class = f.text_family ? "ForConditionalGeneration" : "ForCausalLM";
  if (!a.empty() && !ends_with(a, head_class))
    return config_error("architectures",
                        "names " + a + "; the engine loads a " + c.model_type + " checkpoint's ..." + head_class +
                            " class (the language model with its head)",
                        kInvalidArgument);
  if (!f.text_family) return read_text_model(j, c, f, "");
  // Gemma3ForConditionalGeneration: the text model of text_config (Gemma3TextConfig's
  // defaults where it is silent); the vision settings do not touch a text forward.
  static const Json empty = Json::object();
  const Json* text_config = &empty;
  if (j.contains("text_config") && !j["text_config"].is_null()) {
    if (!j["text_config"].is_object())
      return config_error("text_config", "must be an object, got " + j["text_config"].dump());
    text_config = &j["text_config"];
  }
  if (text_config->contains("model_type")) {
    const Json& t = (*text_config)["model_type"];
    const FamilyEntry* text_entry = nullptr;
    for (const FamilyEntry& e : modern_family_entries())
      if (e.modern == f.text_family) text_entry = &e;
    if (!t.is_string() || t.get<std::string>() != text_entry->info.model_type)
      return config_error(
          "text_config.model_type",
          "is " + t.dump() + "; a " + c.model_type + " model's text model is " + text_entry->info.model_type,
          kInvalidArgument);
  }
  return read_text_model(*text_config, c, *f.text_family, "text_config.");
}

// The config key behind each spec field, for the messages of validate().
std::string modern_key(const std::string& field) {
  static const std::map<std::string, const char*> keys = {
      {"vocabSize", "vocab_size"},
      {"dModel", "hidden_size"},
      {"heads", "num_attention_heads"},
      {"layers", "num_hidden_layers"},
      {"ffnDim", "intermediate_size"},
      {"maxSeq", "max_position_embeddings"},
      {"layerNormEps", "rms_norm_eps"},
      {"kvHeads", "num_key_value_heads"},
      {"headDim", "head_dim"},
      {"ropeFraction", "head_dim"},
      {"ropeTheta", "rope_theta"},
      {"ropeScaling", "rope_scaling"},
      {"ropeFactor", "rope_scaling.factor"},
      {"ropeLowFreqFactor", "rope_scaling.low_freq_factor"},
      {"ropeHighFreqFactor", "rope_scaling.high_freq_factor"},
      {"ropeOriginalContext", "rope_scaling.original_max_position_embeddings"},
      {"window", "sliding_window"},
      {"windowPattern", "sliding_window_pattern"},
      {"ropeLocalTheta", "rope_local_base_freq"},
      {"queryPreAttnScalar", "query_pre_attn_scalar"},
  };
  auto it = keys.find(field);
  return it == keys.end() ? field : it->second;
}
std::string text_config_key(const std::string& field) { return "text_config." + modern_key(field); }

#undef TRY_ASSIGN

// The declarations: defaults as each configuration class's __init__ has them.
ModernFamily llama() {
  ModernFamily f;
  f.config_class = "LlamaConfig";
  f.vocab_size = 32000, f.hidden_size = 4096, f.intermediate_size = 11008, f.layers = 32, f.heads = 32;
  f.max_positions = 2048;
  f.qkv_bias = f.out_bias = BiasRule::AttentionBias;
  f.mlp_bias_key = true;
  return f;
}

ModernFamily qwen2() {
  ModernFamily f;
  f.config_class = "Qwen2Config";
  f.vocab_size = 151936, f.hidden_size = 4096, f.intermediate_size = 22016, f.layers = 32, f.heads = 32;
  f.kv_heads = 32;
  f.max_positions = 32768;
  f.qkv_bias = BiasRule::Always;  // Qwen2Attention: q/k/v with bias, o_proj without
  f.layer_rule = LayerRule::MaxWindowLayers, f.max_window_layers = 28, f.sliding_window = 4096;
  return f;
}

ModernFamily qwen3() {
  ModernFamily f = qwen2();
  f.config_class = "Qwen3Config";
  f.head_dim = 128;
  f.qkv_bias = f.out_bias = BiasRule::AttentionBias;
  f.qk_norm = true;
  return f;
}

ModernFamily gemma3_text() {
  ModernFamily f;
  f.config_class = "Gemma3TextConfig";
  f.vocab_size = 262208, f.hidden_size = 2304, f.intermediate_size = 9216, f.layers = 26, f.heads = 8;
  f.kv_heads = 4, f.head_dim = 256;
  f.max_positions = 131072;
  f.rope_theta = 1000000.0;
  f.tied = true;
  f.pad_token_id = 0;
  f.activation_key = "hidden_activation", f.activation = "gelu_pytorch_tanh";
  f.qkv_bias = f.out_bias = BiasRule::AttentionBias;
  f.qk_norm = true;
  f.gemma = true;
  f.layer_rule = LayerRule::SlidingPattern, f.sliding_window = 4096;
  return f;
}

// The multimodal file: the text model's tensors under language_model.model. (transformers
// before 4.52) or model.language_model. (after), lm_head under either layout.
ModernFamily gemma3(const ModernFamily* text) {
  ModernFamily f;
  f.config_class = "Gemma3Config";
  f.text_family = text;
  f.renames = {{"language_model.model.", "model."},
               {"model.language_model.", "model."},
               {"language_model.lm_head.", "lm_head."}};
  const char* vision = "the vision tower (images), not part of a text forward";
  const char* projector = "the image projector, not part of a text forward";
  f.skips = {{"vision_tower.", vision},
             {"model.vision_tower.", vision},
             {"multi_modal_projector.", projector},
             {"model.multi_modal_projector.", projector}};
  return f;
}

ModernFamily mistral() {
  ModernFamily f;
  f.config_class = "MistralConfig";
  f.vocab_size = 32000, f.hidden_size = 4096, f.intermediate_size = 14336, f.layers = 32, f.heads = 32;
  f.kv_heads = 8;
  f.max_positions = 4096 * 32;
  f.layer_rule = LayerRule::AllSliding, f.sliding_window = 4096;
  return f;
}

}  // namespace

const std::vector<FamilyEntry>& modern_family_entries() {
  static const ModernFamily kLlama = llama(), kQwen2 = qwen2(), kQwen3 = qwen3(), kGemma3Text = gemma3_text(),
                            kGemma3 = gemma3(&kGemma3Text), kMistral = mistral();
  static const std::vector<FamilyEntry> entries = {
      {{Family::Llama, "llama", "tokenizer.json"}, modern_config, modern_key, &kLlama},
      {{Family::Qwen2, "qwen2", "tokenizer.json"}, modern_config, modern_key, &kQwen2},
      {{Family::Qwen3, "qwen3", "tokenizer.json"}, modern_config, modern_key, &kQwen3},
      {{Family::Gemma3Text, "gemma3_text", "tokenizer.json"}, modern_config, modern_key, &kGemma3Text},
      {{Family::Gemma3, "gemma3", "tokenizer.json"}, modern_config, text_config_key, &kGemma3},
      {{Family::Mistral, "mistral", "tokenizer.json"}, modern_config, modern_key, &kMistral},
  };
  return entries;
}

}  // namespace attention::pretrained
