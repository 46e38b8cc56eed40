// The model's parameters: each one's PyTorch name and shape (the constructor), their one
// order (parameter_list: checkpoints, the optimizer and the UI all follow it), and the seeded
// random initialisation. The forward pass is in transformer.cpp.
#include "attention/transformer.hpp"

#include <cmath>

#include "attention/random.hpp"

namespace attention {

namespace {

using error_code::kShapeMismatch;

LinearWeights linear_layer(const std::string& name, int out, int in, bool bias, Storage storage) {
  LinearWeights w;
  w.in_features = in;
  w.out_features = out;
  w.weight = Parameter(name + ".weight", {out, in}, storage);
  if (bias) w.bias = Parameter(name + ".bias", {out});
  return w;
}

// A norm's weights: (E) weight, and bias for LayerNorm. The weight starts at its identity
// (1; 0 for Gemma's 1 + w form).
LayerNormWeights norm_weights(const std::string& name, int e, double eps, NormType type) {
  LayerNormWeights n;
  n.type = type;
  n.weight = Parameter(name + ".weight", {e},
                       std::vector<float>(static_cast<std::size_t>(e), 1.0f - norm_weight_offset(type)));
  if (type == NormType::LayerNorm) n.bias = Parameter(name + ".bias", {e});
  n.eps = static_cast<float>(eps);
  return n;
}

// in_proj ((H + 2 H_kv) d_h, E) = (3E, E) in the classic block; out_proj (E, H d_h).
MultiHeadWeights attention_weights(const std::string& name, const ModelSpec& s, Storage storage) {
  const int e = s.d_model, dh = s.head_dim(), qkv = (s.heads + 2 * s.kv_head_count()) * dh;
  MultiHeadWeights w;
  w.embed_dim = e;
  w.in_proj_weight = Parameter(name + ".in_proj_weight", {qkv, e}, storage);
  if (s.qkv_bias) w.in_proj_bias = Parameter(name + ".in_proj_bias", {qkv});
  if (s.has_qk_norm()) {
    const NormType type = s.norm_type == NormType::LayerNorm ? NormType::RmsNorm : s.norm_type;
    w.q_norm = norm_weights(name + ".q_norm", dh, s.layer_norm_eps, type);
    w.k_norm = norm_weights(name + ".k_norm", dh, s.layer_norm_eps, type);
  }
  w.out_proj_weight = Parameter(name + ".out_proj.weight", {e, s.heads * dh}, storage);
  if (s.out_bias) w.out_proj_bias = Parameter(name + ".out_proj.bias", {e});
  return w;
}

FeedForwardWeights feed_forward(const std::string& prefix, const ModelSpec& s, Storage storage) {
  const bool gated = s.ffn == FfnKind::Gated;
  FeedForwardWeights w{
      linear_layer(prefix + "linear1", gated ? 2 * s.ffn_dim : s.ffn_dim, s.d_model, s.mlp_bias, storage),
      linear_layer(prefix + "linear2", s.d_model, s.ffn_dim, s.mlp_bias, storage)};
  w.gated = gated;
  return w;
}

void add_norm(std::vector<Parameter*>& list, LayerNormWeights& n) {  // nothing without LayerNorm
  if (n.weight.empty()) return;
  list.push_back(&n.weight);
  if (!n.bias.empty()) list.push_back(&n.bias);
}

void add_attention(std::vector<Parameter*>& list, MultiHeadWeights& w) {
  list.push_back(&w.in_proj_weight);
  if (!w.in_proj_bias.empty()) list.push_back(&w.in_proj_bias);
  add_norm(list, w.q_norm);
  add_norm(list, w.k_norm);
  list.push_back(&w.out_proj_weight);
  if (!w.out_proj_bias.empty()) list.push_back(&w.out_proj_bias);
}
void add_linear(std::vector<Parameter*>& list, LinearWeights& w) {
  list.push_back(&w.weight);
  if (!w.bias.empty()) list.push_back(&w.bias);
}

void fill_uniform(Parameter& p, SplitMix64& rng, float bound) {
  for (float& v : p.mutable_values()) v = bound * rng.symmetric_unit();
}
void xavier(Parameter& p, SplitMix64& rng) {  // (rows, cols): U(-a, a), a = sqrt(6 / (fan_in + fan_out))
  const int rows = p.shape()[0], cols = p.shape()[1];
  fill_uniform(p, rng, std::sqrt(6.0f / static_cast<float>(rows + cols)));
}

}  // namespace

Transformer::Transformer(const ModelSpec& s, Storage storage) : spec_(s) {
  const int e = s.d_model;
  embed_ = Parameter("embed.weight", {s.vocab_size, e}, storage);
  if (s.positions == Positions::Learned) pos_ = Parameter("pos.weight", {s.max_seq, e});
  if (s.type_vocab_size > 0) token_type_ = Parameter("token_type.weight", {s.type_vocab_size, e});
  if (s.has_embed_norm()) embed_norm_ = norm_weights("embed_norm", e, s.layer_norm_eps, NormType::LayerNorm);
  // A layer's norm, or none (no weights) in a model without norms.
  const auto layer_norm = [&](const std::string& name) {
    return s.layer_norm ? norm_weights(name, e, s.layer_norm_eps, s.norm_type) : LayerNormWeights{};
  };
  const auto post_norm = [&](const std::string& name) { return s.sandwich() ? layer_norm(name) : LayerNormWeights{}; };
  const std::string single = s.encoder_decoder() ? "encoder.layers." : "layers.";
  const int encoder_count = s.encoder_decoder() ? s.encoder_layers : s.layers;
  for (int l = 0; l < encoder_count; ++l) {
    const std::string p = single + std::to_string(l) + ".";
    EncoderLayerWeights w;
    w.self_attn = attention_weights(p + "self_attn", s, storage);
    w.ffn = feed_forward(p, s, storage);
    w.norm1 = layer_norm(p + "norm1");
    w.norm2 = layer_norm(p + "norm2");
    w.post_norm1 = post_norm(p + "post_norm1");
    w.post_norm2 = post_norm(p + "post_norm2");
    layers_.push_back(std::move(w));
  }
  if (s.encoder_decoder())
    for (int l = 0; l < s.layers; ++l) {
      const std::string p = "decoder.layers." + std::to_string(l) + ".";
      DecoderLayerWeights w;
      w.self_attn = attention_weights(p + "self_attn", s, storage);
      w.cross_attn = attention_weights(p + "multihead_attn", s, storage);
      w.ffn = feed_forward(p, s, storage);
      w.norm1 = layer_norm(p + "norm1");
      w.norm2 = layer_norm(p + "norm2");
      w.norm3 = layer_norm(p + "norm3");
      w.post_norm1 = post_norm(p + "post_norm1");
      w.post_norm2 = post_norm(p + "post_norm2");
      w.post_norm3 = post_norm(p + "post_norm3");
      decoder_layers_.push_back(std::move(w));
    }
  if (s.has_final_norm()) {
    norm_ = layer_norm(s.encoder_decoder() ? "encoder.norm" : "norm");
    if (s.encoder_decoder()) decoder_norm_ = layer_norm("decoder.norm");
  }
  if (s.head_weight()) head_ = linear_layer("head", s.vocab_size, e, s.head_bias, storage);
  if (s.mlm_head()) {
    head_dense_ = linear_layer("head.dense", e, e, true, storage);
    if (s.layer_norm) head_norm_ = norm_weights("head.norm", e, s.layer_norm_eps, NormType::LayerNorm);
  }
  if (s.tied_head() && s.head_bias) head_.bias = Parameter("head.bias", {s.vocab_size});
  head_.in_features = e;
  head_.out_features = s.vocab_size;
}

Result<Transformer> Transformer::create(const ModelSpec& spec, Storage matrix_storage) {
  if (Status s = validate(spec); !s) return s.error_value();
  if (Status s = check_parameter_bytes(spec, matrix_storage); !s) return s.error_value();
  return Transformer(spec, matrix_storage);
}

Transformer::WeightBytes Transformer::weight_bytes() const {
  WeightBytes bytes;
  visit_parameters([&](const Parameter& p) {
    std::size_t* slot = p.storage() == Storage::BF16   ? &bytes.bf16
                        : p.storage() == Storage::F16  ? &bytes.f16
                        : p.storage() == Storage::Q8_0 ? &bytes.q8_0
                                                       : &bytes.f32;
    *slot += p.bytes();
  });
  return bytes;
}

Status Transformer::writable() const {
  Status status = Ok{};
  visit_parameters([&](const Parameter& p) {
    if (status) status = p.writable();
  });
  return status;
}

std::vector<Parameter*> Transformer::parameter_list() {
  std::vector<Parameter*> list{&embed_};
  if (!pos_.empty()) list.push_back(&pos_);
  if (!token_type_.empty()) list.push_back(&token_type_);
  add_norm(list, embed_norm_);
  for (EncoderLayerWeights& w : layers_) {
    add_attention(list, w.self_attn);
    add_linear(list, w.ffn.linear1);
    add_linear(list, w.ffn.linear2);
    add_norm(list, w.norm1);
    add_norm(list, w.norm2);
    add_norm(list, w.post_norm1);
    add_norm(list, w.post_norm2);
  }
  if (spec_.has_final_norm()) add_norm(list, norm_);
  for (DecoderLayerWeights& w : decoder_layers_) {
    add_attention(list, w.self_attn);
    add_attention(list, w.cross_attn);
    add_linear(list, w.ffn.linear1);
    add_linear(list, w.ffn.linear2);
    add_norm(list, w.norm1);
    add_norm(list, w.norm2);
    add_norm(list, w.norm3);
    add_norm(list, w.post_norm1);
    add_norm(list, w.post_norm2);
    add_norm(list, w.post_norm3);
  }
  if (spec_.has_final_norm() && spec_.encoder_decoder()) add_norm(list, decoder_norm_);
  if (spec_.mlm_head()) {
    add_linear(list, head_dense_);
    add_norm(list, head_norm_);
  }
  if (spec_.head_weight()) list.push_back(&head_.weight);
  if (!head_.bias.empty()) list.push_back(&head_.bias);
  return list;
}

Parameter* Transformer::find_parameter(const std::string& name) {
  for (Parameter* p : parameter_list())
    if (p->name() == name) return p;
  return nullptr;
}

void Transformer::initialize_random(std::uint64_t seed) {
  SplitMix64 rng(seed * 0x9E3779B97F4A7C15ull + 0x2545F4914F6CDD1Dull);
  const float unit_variance = std::sqrt(3.0f);  // U(-sqrt 3, sqrt 3) has variance 1
  visit_parameters([&](Parameter& p) {
    if (&p == &embed_ || &p == &pos_)
      fill_uniform(p, rng, unit_variance);
    else if (p.shape().size() == 2)
      xavier(p, rng);
    else
      p.mutable_values().assign(p.size(), 0.0f);  // biases, and LayerNorm's until below
  });
  const auto unit = [](LayerNormWeights& n) {  // the identity scale: 1, or 0 in Gemma's 1 + w
    if (!n.weight.empty()) n.weight.mutable_values().assign(n.weight.size(), 1.0f - norm_weight_offset(n.type));
  };
  for (EncoderLayerWeights& w : layers_)
    for (LayerNormWeights* n :
         {&w.norm1, &w.norm2, &w.post_norm1, &w.post_norm2, &w.self_attn.q_norm, &w.self_attn.k_norm})
      unit(*n);
  for (DecoderLayerWeights& w : decoder_layers_)
    for (LayerNormWeights* n : {&w.norm1, &w.norm2, &w.norm3, &w.post_norm1, &w.post_norm2, &w.post_norm3,
                                &w.self_attn.q_norm, &w.self_attn.k_norm, &w.cross_attn.q_norm, &w.cross_attn.k_norm})
      unit(*n);
  unit(norm_);
  unit(decoder_norm_);
  unit(embed_norm_);
  unit(head_norm_);
}

Status Transformer::set_embeddings(int vocab_size, std::vector<float> values) {
  if (spec_.head != OutputHead::None)
    return Error{"the embedding table can only be replaced in a model without an output head",
                 error_code::kInvalidArgument, "head"};
  if (Status s = embed_.writable(); !s) return s;
  if (vocab_size < 1 || values.size() != static_cast<std::size_t>(vocab_size) * spec_.d_model)
    return Error{"embedding table of the wrong size", kShapeMismatch, "embed.weight"};
  spec_.vocab_size = vocab_size;
  embed_.reset({vocab_size, spec_.d_model}, std::move(values));
  return Ok{};
}

}  // namespace attention
