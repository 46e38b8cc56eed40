// Hub tensor names of GPT-2 (GPT2Model / GPT2LMHeadModel), BERT (BertModel,
// BertForMaskedLM, BertForPreTraining) and the modern decoders (LlamaForCausalLM and its
// kin, Gemma3ForConditionalGeneration's text model) mapped onto the engine's parameters.
#include "hub_names.hpp"
#include "families.hpp"

namespace attention::pretrained {

namespace {

bool starts_with(const std::string& s, const std::string& prefix) { return s.compare(0, prefix.size(), prefix) == 0; }
bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

class Table {
 public:
  Table(std::map<std::string, HubTarget>& out, std::vector<std::string>& slot_names)
      : out_(out), slot_names_(slot_names) {}
  // The parameter as a whole, in the same layout.
  void same(const std::string& hub, Parameter& p) { add(hub, p, p.shape(), 0, false); }
  // A 2-D parameter (out, in) stored (in, out).
  void transposed(const std::string& hub, Parameter& p) { add(hub, p, {p.shape()[1], p.shape()[0]}, 0, true); }
  // Rows [row, row + rows) of the parameter (all its columns), or elements of a 1-D one.
  void rows(const std::string& hub, Parameter& p, int row, int rows) {
    std::vector<int> shape = p.shape();
    shape[0] = rows;
    add(hub, p, shape, row, false);
  }
  // A second name for the tensor added as `of`, `why` it is the same tensor: filled once,
  // by either name; a file that stores both must give both the same values.
  void alias(const std::string& hub, const std::string& of, const std::string& why) {
    HubTarget t = out_.at(of);
    t.alias_of = why;
    out_[hub] = t;
  }

 private:
  void add(const std::string& hub, Parameter& p, std::vector<int> shape, int row, bool transpose) {
    out_[hub] = HubTarget{&p, std::move(shape), row, transpose, static_cast<int>(slot_names_.size()), ""};
    slot_names_.push_back(hub);
  }
  std::map<std::string, HubTarget>& out_;
  std::vector<std::string>& slot_names_;
};

void norm(Table& t, const std::string& hub, LayerNormWeights& n) {
  t.same(hub + ".weight", n.weight);
  t.same(hub + ".bias", n.bias);
}

void gpt2(Table& t, Transformer& m) {
  t.same("wte.weight", m.embed());
  t.same("wpe.weight", m.positions());
  for (std::size_t i = 0; i < m.encoder_layers().size(); ++i) {
    EncoderLayerWeights& w = m.encoder_layers()[i];
    const std::string h = "h." + std::to_string(i) + ".";
    norm(t, h + "ln_1", w.norm1);
    t.transposed(h + "attn.c_attn.weight", w.self_attn.in_proj_weight);  // (E, 3E): q | k | v columns
    t.same(h + "attn.c_attn.bias", w.self_attn.in_proj_bias);
    t.transposed(h + "attn.c_proj.weight", w.self_attn.out_proj_weight);
    t.same(h + "attn.c_proj.bias", w.self_attn.out_proj_bias);
    norm(t, h + "ln_2", w.norm2);
    t.transposed(h + "mlp.c_fc.weight", w.ffn.linear1.weight);  // (E, F)
    t.same(h + "mlp.c_fc.bias", w.ffn.linear1.bias);
    t.transposed(h + "mlp.c_proj.weight", w.ffn.linear2.weight);  // (F, E)
    t.same(h + "mlp.c_proj.bias", w.ffn.linear2.bias);
  }
  norm(t, "ln_f", m.final_norm());
  // GPT2LMHeadModel's lm_head (V, E): its own weight when tie_word_embeddings is false,
  // else a second name of wte.weight (some conversions store it anyway).
  if (m.spec().head == OutputHead::Linear) t.same("lm_head.weight", m.head().weight);
  if (m.spec().head == OutputHead::Tied)
    t.alias("lm_head.weight", "wte.weight", "the output is tied to the embeddings (tie_word_embeddings is true)");
}

void bert(Table& t, Transformer& m) {
  const int e = m.spec().d_model;
  t.same("embeddings.word_embeddings.weight", m.embed());
  t.same("embeddings.position_embeddings.weight", m.positions());
  t.same("embeddings.token_type_embeddings.weight", m.token_types());
  norm(t, "embeddings.LayerNorm", m.embed_norm());
  for (std::size_t i = 0; i < m.encoder_layers().size(); ++i) {
    EncoderLayerWeights& w = m.encoder_layers()[i];
    const std::string l = "encoder.layer." + std::to_string(i) + ".";
    const char* parts[] = {"query", "key", "value"};  // in_proj rows: q [0, E), k [E, 2E), v [2E, 3E)
    for (int p = 0; p < 3; ++p) {
      t.rows(l + "attention.self." + parts[p] + ".weight", w.self_attn.in_proj_weight, p * e, e);
      t.rows(l + "attention.self." + parts[p] + ".bias", w.self_attn.in_proj_bias, p * e, e);
    }
    t.same(l + "attention.output.dense.weight", w.self_attn.out_proj_weight);
    t.same(l + "attention.output.dense.bias", w.self_attn.out_proj_bias);
    norm(t, l + "attention.output.LayerNorm", w.norm1);
    t.same(l + "intermediate.dense.weight", w.ffn.linear1.weight);
    t.same(l + "intermediate.dense.bias", w.ffn.linear1.bias);
    t.same(l + "output.dense.weight", w.ffn.linear2.weight);
    t.same(l + "output.dense.bias", w.ffn.linear2.bias);
    norm(t, l + "output.LayerNorm", w.norm2);
  }
  if (m.spec().mlm_head()) {
    t.same("cls.predictions.transform.dense.weight", m.mlm_dense().weight);
    t.same("cls.predictions.transform.dense.bias", m.mlm_dense().bias);
    norm(t, "cls.predictions.transform.LayerNorm", m.mlm_norm());
    t.same("cls.predictions.bias", m.head().bias);
    // BertLMPredictionHead ties decoder.bias to bias: newer files store only one name, older
    // files and some conversions both.
    t.alias("cls.predictions.decoder.bias", "cls.predictions.bias", "the decoder's bias is the head's bias");
    // The decoder (V, E): its own weight when tie_word_embeddings is false, else a second
    // name of the word embeddings (most files store it).
    if (m.spec().head == OutputHead::MlmUntied)
      t.same("cls.predictions.decoder.weight", m.head().weight);
    else
      t.alias("cls.predictions.decoder.weight", "embeddings.word_embeddings.weight",
              "the decoder is tied to the word embeddings (tie_word_embeddings is true)");
  }
}

// The modern decoders (names as transformers' LlamaForCausalLM, Qwen2/3ForCausalLM,
// Gemma3ForCausalLM save them), from the spec the config made: which biases, norms and
// head exist follows the spec (modern_config.cpp chose them from the family's rules).
void modern(Table& t, Transformer& m) {
  const ModelSpec& s = m.spec();
  const int q = s.heads * s.head_dim(), kv = s.kv_head_count() * s.head_dim(), f = s.ffn_dim;
  t.same("model.embed_tokens.weight", m.embed());
  for (std::size_t i = 0; i < m.encoder_layers().size(); ++i) {
    EncoderLayerWeights& w = m.encoder_layers()[i];
    const std::string l = "model.layers." + std::to_string(i) + ".", a = l + "self_attn.", p = l + "mlp.";
    // in_proj ((H + 2 H_kv) d_h, E): q_proj (H d_h, E), k_proj (H_kv d_h, E), v_proj (H_kv d_h, E) rows
    const std::pair<const char*, std::pair<int, int>> qkv[] = {
        {"q_proj", {0, q}}, {"k_proj", {q, kv}}, {"v_proj", {q + kv, kv}}};
    for (const auto& [name, rows] : qkv) {
      t.rows(a + name + ".weight", w.self_attn.in_proj_weight, rows.first, rows.second);
      if (s.qkv_bias) t.rows(a + name + ".bias", w.self_attn.in_proj_bias, rows.first, rows.second);
    }
    if (s.has_qk_norm()) {
      t.same(a + "q_norm.weight", w.self_attn.q_norm.weight);
      t.same(a + "k_norm.weight", w.self_attn.k_norm.weight);
    }
    t.same(a + "o_proj.weight", w.self_attn.out_proj_weight);
    if (s.out_bias) t.same(a + "o_proj.bias", w.self_attn.out_proj_bias);
    // linear1 (2F, E): gate_proj (F, E) rows, then up_proj (F, E); linear2 (E, F) = down_proj
    t.rows(p + "gate_proj.weight", w.ffn.linear1.weight, 0, f);
    t.rows(p + "up_proj.weight", w.ffn.linear1.weight, f, f);
    t.same(p + "down_proj.weight", w.ffn.linear2.weight);
    if (s.mlp_bias) {
      t.rows(p + "gate_proj.bias", w.ffn.linear1.bias, 0, f);
      t.rows(p + "up_proj.bias", w.ffn.linear1.bias, f, f);
      t.same(p + "down_proj.bias", w.ffn.linear2.bias);
    }
    t.same(l + "input_layernorm.weight", w.norm1.weight);
    if (s.sandwich()) {  // Gemma: post_attention_layernorm is the attention output's norm
      t.same(l + "post_attention_layernorm.weight", w.post_norm1.weight);
      t.same(l + "pre_feedforward_layernorm.weight", w.norm2.weight);
      t.same(l + "post_feedforward_layernorm.weight", w.post_norm2.weight);
    } else {
      t.same(l + "post_attention_layernorm.weight", w.norm2.weight);
    }
  }
  t.same("model.norm.weight", m.final_norm().weight);
  if (s.head == OutputHead::Linear) t.same("lm_head.weight", m.head().weight);
  if (s.head == OutputHead::Tied)
    t.alias("lm_head.weight", "model.embed_tokens.weight",
            "the output is tied to the embeddings (tie_word_embeddings is true)");
}

}  // namespace

std::map<std::string, HubTarget> hub_targets(Family family, Transformer& model, std::vector<std::string>& slot_names) {
  std::map<std::string, HubTarget> out;
  slot_names.clear();
  Table table(out, slot_names);
  if (family == Family::Gpt2)
    gpt2(table, model);
  else if (family == Family::Bert)
    bert(table, model);
  else
    modern(table, model);
  return out;
}

std::string canonical_name(Family family, const std::string& name) {
  if (const ModernFamily* modern = family_entry(family).modern) {
    for (const auto& [from, to] : modern->renames)
      if (starts_with(name, from)) return to + name.substr(from.size());
    return name;
  }
  std::string n = name;
  const std::string prefix = family == Family::Gpt2 ? "transformer." : "bert.";
  if (starts_with(n, prefix)) n = n.substr(prefix.size());
  if (family == Family::Bert) {
    if (ends_with(n, "LayerNorm.gamma"))
      n = n.substr(0, n.size() - 5) + "weight";
    else if (ends_with(n, "LayerNorm.beta"))
      n = n.substr(0, n.size() - 4) + "bias";
  }
  return n;
}

std::string skip_reason(Family family, const ModelSpec& spec, const std::string& n) {
  if (const ModernFamily* modern = family_entry(family).modern) {
    for (const auto& [prefix, why] : modern->skips)
      if (starts_with(n, prefix)) return why;
    // Older Llama conversions keep each layer's inverse frequencies as a buffer.
    if (starts_with(n, "model.layers.") && ends_with(n, ".self_attn.rotary_emb.inv_freq"))
      return "RoPE's inverse frequencies (the engine computes them from the config)";
    return "";
  }
  if (family == Family::Gpt2) {
    if (starts_with(n, "h.") && (ends_with(n, ".attn.bias") || ends_with(n, ".attn.masked_bias")))
      return "GPT-2's causal-mask buffer (the engine masks by position)";
    return "";
  }
  if (n == "embeddings.position_ids") return "a buffer of positions 0..max-1";
  if (starts_with(n, "pooler.")) return "the pooler (the [CLS] classifier's input), not used by the views";
  if (starts_with(n, "cls.seq_relationship.")) return "the next-sentence head, not used by the views";
  if (starts_with(n, "cls.predictions.") && !spec.mlm_head())
    return "the masked-LM head, which this config's architecture does not use";
  return "";
}

std::vector<Parameter*> implicit_zero_parameters(Family family, Transformer& model) {
  if (family == Family::Gpt2 && model.spec().head != OutputHead::None) return {&model.head().bias};
  return {};
}

}  // namespace attention::pretrained
