// config.json of the GPT-2 and BERT families -> ModelSpec, the registry of every family
// (families.hpp; the modern ones are declared in modern_config.cpp), and the shard index.
// Keys and defaults follow the Hugging Face configuration classes (GPT2Config,
// BertConfig): a key that is absent takes the class default; a present key of the
// wrong type, or a value the engine cannot run the way the modelling code does, is an
// Error naming that key.
#include <algorithm>
#include <cmath>
#include <set>

#include <nlohmann/json.hpp>

#include "../untrusted_json.hpp"
#include "attention/pretrained.hpp"
#include "config_values.hpp"
#include "families.hpp"

namespace attention::pretrained {

namespace {

using namespace config_values;
using error_code::kBadFile;
using error_code::kInvalidArgument;

Result<Json> parse_object(const std::string& text, const char* file) {
  Result<Json> parsed = parse_untrusted_json(text, file);
  if (!parsed) return parsed;
  const Json& j = parsed.value();
  if (!j.is_object()) return Error{std::string(file) + " must be a JSON object", kBadFile, file};
  return parsed;
}

#define TRY_ASSIGN ATTENTION_TRY_ASSIGN

Result<HubConfig> gpt2_config(const Json& j, HubConfig c, const ModernFamily*) {
  ModelSpec& s = c.spec;
  TRY_ASSIGN(s.vocab_size, integer(j, "vocab_size", 50257));
  int n_ctx = 1024;
  TRY_ASSIGN(n_ctx, integer(j, "n_ctx", 1024));
  TRY_ASSIGN(s.max_seq, integer(j, "n_positions", n_ctx));
  TRY_ASSIGN(s.d_model, integer(j, "n_embd", 768));
  TRY_ASSIGN(s.layers, integer(j, "n_layer", 12));
  TRY_ASSIGN(s.heads, integer(j, "n_head", 12));
  TRY_ASSIGN(s.ffn_dim, integer(j, "n_inner", 4 * s.d_model, /*null_ok=*/true));
  std::string act;
  TRY_ASSIGN(act, text(j, "activation_function", "gelu_new"));
  TRY_ASSIGN(s.activation, activation("activation_function", act));
  TRY_ASSIGN(s.layer_norm_eps, number(j, "layer_norm_epsilon", 1e-5));
  TRY_ASSIGN(s.scale, boolean(j, "scale_attn_weights", true));
  bool by_layer = false;
  TRY_ASSIGN(by_layer, boolean(j, "scale_attn_by_inverse_layer_idx", false));
  if (by_layer)
    return config_error("scale_attn_by_inverse_layer_idx", "is true; the engine scales every layer by 1/sqrt(d_k) only",
                        kInvalidArgument);
  bool tied = true;
  TRY_ASSIGN(tied, boolean(j, "tie_word_embeddings", true));
  s.positions = Positions::Learned;
  s.causal = true;
  s.norm = NormPlacement::Pre;
  s.final_norm = true;
  s.head = tied ? OutputHead::Tied : OutputHead::Linear;
  TRY_ASSIGN(c.pad_token_id, integer(j, "pad_token_id", -1, /*null_ok=*/true));
  return c;
}

Result<HubConfig> bert_config(const Json& j, HubConfig c, const ModernFamily*) {
  ModelSpec& s = c.spec;
  TRY_ASSIGN(s.vocab_size, integer(j, "vocab_size", 30522));
  TRY_ASSIGN(s.d_model, integer(j, "hidden_size", 768));
  TRY_ASSIGN(s.layers, integer(j, "num_hidden_layers", 12));
  TRY_ASSIGN(s.heads, integer(j, "num_attention_heads", 12));
  TRY_ASSIGN(s.ffn_dim, integer(j, "intermediate_size", 3072));
  std::string act;
  TRY_ASSIGN(act, text(j, "hidden_act", "gelu"));
  TRY_ASSIGN(s.activation, activation("hidden_act", act));
  TRY_ASSIGN(s.max_seq, integer(j, "max_position_embeddings", 512));
  TRY_ASSIGN(s.type_vocab_size, integer(j, "type_vocab_size", 2));
  TRY_ASSIGN(s.layer_norm_eps, number(j, "layer_norm_eps", 1e-12));
  std::string positions;
  TRY_ASSIGN(positions, text(j, "position_embedding_type", "absolute"));
  if (positions != "absolute")
    return config_error("position_embedding_type", "is \"" + positions + "\"; the engine runs absolute positions only",
                        kInvalidArgument);
  bool decoder = false;
  TRY_ASSIGN(decoder, boolean(j, "is_decoder", false));
  if (decoder) return config_error("is_decoder", "is true; the engine runs BERT as an encoder only", kInvalidArgument);
  s.positions = Positions::Learned;
  s.causal = false;
  s.norm = NormPlacement::Post;
  s.final_norm = false;
  s.embed_norm = true;
  const std::string& a = c.architecture;
  const bool masked_lm = a.find("ForMaskedLM") != std::string::npos || a.find("ForPreTraining") != std::string::npos;
  // As in Hugging Face: the masked-LM decoder is the word embeddings unless the config
  // unties them; an untied decoder is the file's cls.predictions.decoder.weight.
  bool tied = true;
  TRY_ASSIGN(tied, boolean(j, "tie_word_embeddings", true));
  s.head = !masked_lm ? OutputHead::None : tied ? OutputHead::Mlm : OutputHead::MlmUntied;
  TRY_ASSIGN(c.pad_token_id, integer(j, "pad_token_id", 0, /*null_ok=*/true));
  return c;
}

// The config key behind each spec field, for the messages of validate().
std::string classic_key(const std::string& field, bool gpt2) {
  static const std::map<std::string, std::pair<const char*, const char*>> keys = {
      {"vocabSize", {"vocab_size", "vocab_size"}},
      {"dModel", {"n_embd", "hidden_size"}},
      {"heads", {"n_head", "num_attention_heads"}},
      {"layers", {"n_layer", "num_hidden_layers"}},
      {"ffnDim", {"n_inner", "intermediate_size"}},
      {"maxSeq", {"n_positions", "max_position_embeddings"}},
      {"layerNormEps", {"layer_norm_epsilon", "layer_norm_eps"}},
      {"typeVocabSize", {"type_vocab_size", "type_vocab_size"}},
  };
  auto it = keys.find(field);
  if (it == keys.end()) return field;
  return gpt2 ? it->second.first : it->second.second;
}
std::string gpt2_key(const std::string& field) { return classic_key(field, true); }
std::string bert_key(const std::string& field) { return classic_key(field, false); }

#undef TRY_ASSIGN

// "\"gpt2\" and \"bert\"": the model_types the engine loads, for messages.
std::string model_types_text() {
  std::string out;
  const auto& entries = family_entries();
  for (std::size_t i = 0; i < entries.size(); ++i)
    out += std::string(i == 0                    ? ""
                       : i + 1 == entries.size() ? " and "
                                                 : ", ") +
           "\"" + entries[i].info.model_type + "\"";
  return out;
}

}  // namespace

const std::vector<FamilyEntry>& family_entries() {
  static const std::vector<FamilyEntry> entries = [] {
    std::vector<FamilyEntry> out = {{{Family::Gpt2, "gpt2", "bpe"}, gpt2_config, gpt2_key, nullptr},
                                    {{Family::Bert, "bert", "wordpiece"}, bert_config, bert_key, nullptr}};
    for (const FamilyEntry& e : modern_family_entries()) out.push_back(e);
    return out;
  }();
  return entries;
}

const FamilyEntry& family_entry(Family family) {
  for (const FamilyEntry& e : family_entries())
    if (e.info.family == family) return e;
  return family_entries().front();  // unreachable: every Family has an entry
}

const std::vector<FamilyInfo>& family_infos() {
  static const std::vector<FamilyInfo> infos = [] {
    std::vector<FamilyInfo> out;
    for (const FamilyEntry& e : family_entries()) out.push_back(e.info);
    return out;
  }();
  return infos;
}

const char* to_string(Family family) {
  for (const FamilyInfo& f : family_infos())
    if (f.family == family) return f.model_type;
  return "";
}

Result<HubConfig> read_config(const std::string& json_text) {
  Result<Json> parsed = parse_object(json_text, "config.json");
  if (!parsed) return parsed.error_value();
  const Json& j = parsed.value();
  HubConfig c;
  if (!j.contains("model_type"))
    return config_error("model_type", "is missing; the engine loads model_type " + model_types_text(),
                        kInvalidArgument);
  if (!j["model_type"].is_string())
    return config_error("model_type", "must be a string, got " + j["model_type"].dump());
  c.model_type = j["model_type"].get<std::string>();
  if (j.contains("architectures")) {
    const Json& a = j["architectures"];
    if (!a.is_array() || (!a.empty() && !a[0].is_string()))
      return config_error("architectures", "must be a list of class names, got " + a.dump());
    if (!a.empty()) c.architecture = a[0].get<std::string>();
  }
  const auto& entries = family_entries();
  auto entry = std::find_if(entries.begin(), entries.end(),
                            [&](const FamilyEntry& e) { return c.model_type == e.info.model_type; });
  if (entry == entries.end())
    return config_error("model_type", "is \"" + c.model_type + "\"; the engine loads " + model_types_text() + " models",
                        kInvalidArgument);
  c.family = entry->info.family;
  Result<HubConfig> out = entry->read(j, c, entry->modern);
  if (!out) return out;
  if (Status s = validate(out.value().spec); !s) {
    Error e = s.error_value();
    const std::string key = entry->config_key(e.field);
    return Error{"config.json (" + key + "): " + e.message, e.code, key};
  }
  const int pad = out.value().pad_token_id;
  if (pad >= out.value().spec.vocab_size)
    return config_error("pad_token_id", "is " + std::to_string(pad) + ", outside the vocabulary",
                        error_code::kOutOfRange);
  return out;
}

Result<ShardIndex> read_shard_index(const std::string& json_text) {
  const char* file = "model.safetensors.index.json";
  Result<Json> parsed = parse_object(json_text, file);
  if (!parsed) return parsed.error_value();
  const Json& j = parsed.value();
  if (!j.contains("weight_map") || !j["weight_map"].is_object() || j["weight_map"].empty())
    return Error{std::string(file) + ": weight_map must be an object of tensor name -> file name", kBadFile,
                 "weight_map"};
  ShardIndex index;
  std::set<std::string> seen;
  for (auto it = j["weight_map"].begin(); it != j["weight_map"].end(); ++it) {
    if (!it.value().is_string())
      return Error{
          std::string(file) + ": weight_map[\"" + it.key() + "\"] must be a file name, got " + it.value().dump(),
          kBadFile, it.key()};
    const std::string name = it.value().get<std::string>();
    if (name.empty() || name.find('/') != std::string::npos || name.find('\\') != std::string::npos || name == "." ||
        name == "..")
      return Error{std::string(file) + ": weight_map[\"" + it.key() + "\"] is \"" + name +
                       "\", not a file name in the same folder",
                   kBadFile, it.key()};
    index.weight_map[it.key()] = name;
    if (seen.insert(name).second) index.files.push_back(name);
  }
  return index;
}

}  // namespace attention::pretrained
