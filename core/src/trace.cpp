#include "attention/trace.hpp"

namespace attention {

namespace {

// '*' matches any run of characters (also none); everything else matches itself.
bool glob_match(const char* pattern, const char* text) {
  const char* star = nullptr;
  const char* resume = nullptr;
  while (*text) {
    if (*pattern == '*') {
      star = pattern++;
      resume = text;
    } else if (*pattern == *text) {
      ++pattern;
      ++text;
    } else if (star) {
      pattern = star + 1;
      text = ++resume;
    } else {
      return false;
    }
  }
  while (*pattern == '*') ++pattern;
  return *pattern == '\0';
}

}  // namespace

const std::vector<StageInfo>& stage_registry() {
  using S = StageScope;
  static const std::vector<StageInfo> registry = {
      {StageId::PaddingMask, "padding_mask", S::Stack, "mask", "padding", "B,S",
       "1 where a position is padding (the sequence is shorter than the batch)"},
      {StageId::Embeddings, "embeddings", S::Stack, "embeddings", "", "B,S,E",
       "each token's row of the embedding table"},
      {StageId::Positions, "positions", S::Stack, "embeddings", "", "S,E",
       "the position vectors added to the embeddings"},
      {StageId::TokenTypes, "token_types", S::Stack, "embeddings", "", "B,S,E",
       "each token's segment row (sentence A or B) of the token-type table"},
      {StageId::Input, "input", S::Stack, "activations", "", "B,S,E",
       "embeddings + positions (+ token types, then LayerNorm where the model has one): what the first layer reads"},
      {StageId::FinalNorm, "final_norm", S::Stack, "norm", "", "B,S,E", "the stack's final norm"},
      {StageId::QProj, "q_proj", S::Attention, "projection", "", "B,Sq,E", "queries: input · W_qᵀ + b_q, row by row"},
      {StageId::KProj, "k_proj", S::Attention, "projection", "", "B,Sk,E", "keys: input · W_kᵀ + b_k, row by row"},
      {StageId::VProj, "v_proj", S::Attention, "projection", "", "B,Sk,E", "values: input · W_vᵀ + b_v, row by row"},
      {StageId::QSplit, "q_split", S::Attention, "heads", "", "B,Sq,H,d_k",
       "the same queries, the last axis read as H blocks of d_k"},
      {StageId::QHeads, "q_heads", S::Attention, "heads", "", "B,H,Sq,d_k", "queries gathered per head"},
      {StageId::KHeads, "k_heads", S::Attention, "heads", "", "B,H,Sk,d_k",
       "keys gathered per head (B, H_kv, Sk, d_k) with grouped-query attention"},
      {StageId::VHeads, "v_heads", S::Attention, "heads", "", "B,H,Sk,d_k",
       "values gathered per head (B, H_kv, Sk, d_k) with grouped-query attention"},
      {StageId::KvGroup, "kv_group", S::Attention, "heads", "", "H",
       "grouped-query attention: the key/value head each query head reads"},
      {StageId::QNormed, "q_normed", S::Attention, "norm", "", "B,H,Sq,d_k", "each head's queries after its RMSNorm"},
      {StageId::KNormed, "k_normed", S::Attention, "norm", "", "B,H,Sk,d_k", "each head's keys after its RMSNorm"},
      {StageId::QRotated, "q_rotated", S::Attention, "heads", "", "B,H,Sq,d_k",
       "queries after RoPE: each pair of dimensions turned by position × its frequency"},
      {StageId::KRotated, "k_rotated", S::Attention, "heads", "", "B,H,Sk,d_k",
       "keys after RoPE: each pair of dimensions turned by position × its frequency"},
      {StageId::MaskPadding, "mask.padding", S::Attention, "mask", "padding", "B,Sk", "1 where the key is padding"},
      {StageId::MaskCausal, "mask.causal", S::Attention, "mask", "causal", "Sq,Sk",
       "1 where the key is in the query's future (j > i)"},
      {StageId::MaskWindow, "mask.window", S::Attention, "mask", "window", "Sq,Sk",
       "1 where the key is outside the sliding window (j ≤ i − window)"},
      {StageId::MaskUser, "mask.user", S::Attention, "mask", "user", "Sq,Sk",
       "1 where the given attention mask blocks the pair"},
      {StageId::MaskAdditive, "mask.additive", S::Attention, "mask", "additive", "Sq,Sk",
       "the given float mask, added to the scaled scores"},
      {StageId::Alibi, "alibi", S::Attention, "bias", "", "H,Sq,Sk",
       "ALiBi: −slope_h × |i − j| added to each head's scaled scores"},
      {StageId::Mask, "mask", S::Attention, "mask", "combined", "B,Sq,Sk",
       "1 where the pair is blocked for any reason"},
      {StageId::Scores, "scores", S::Attention, "scores", "", "B,H,Sq,Sk", "Q·Kᵀ per head, before scaling and masking"},
      {StageId::Scaled, "scaled", S::Attention, "scores", "", "B,H,Sq,Sk", "scores ÷ √d_k"},
      {StageId::Masked, "masked", S::Attention, "scores", "", "B,H,Sq,Sk", "scaled scores, −∞ where blocked"},
      {StageId::Weights, "weights", S::Attention, "weights", "", "B,H,Sq,Sk",
       "softmax over keys: each unblocked row sums to 1"},
      {StageId::Context, "context", S::Attention, "context", "", "B,H,Sq,d_k", "weights · V per head"},
      {StageId::Merged, "merged", S::Attention, "heads", "", "B,Sq,E", "the heads' contexts side by side"},
      {StageId::AttnOutput, "output", S::Attention, "projection", "", "B,Sq,E",
       "merged · W_oᵀ + b_o: the output projection mixes heads"},
      {StageId::AttnActivated, "activated", S::Attention, "activations", "", "B,Sq,E",
       "the activation after attention (attnActivation) applied to the output, element by element"},
      {StageId::Norm1, "norm1", S::Layer, "norm", "", "B,S,E",
       "the norm of the first sub-layer (LayerNorm or RMSNorm)"},
      {StageId::Norm2, "norm2", S::Layer, "norm", "", "B,S,E",
       "the norm of the second sub-layer (LayerNorm or RMSNorm)"},
      {StageId::Norm3, "norm3", S::Layer, "norm", "", "B,S,E",
       "the norm of the third sub-layer (LayerNorm or RMSNorm)"},
      {StageId::PostNorm1, "post_norm1", S::Layer, "norm", "", "B,S,E",
       "sandwich norms: the first sub-layer's output normalised before the residual addition"},
      {StageId::PostNorm2, "post_norm2", S::Layer, "norm", "", "B,S,E",
       "sandwich norms: the second sub-layer's output normalised before the residual addition"},
      {StageId::PostNorm3, "post_norm3", S::Layer, "norm", "", "B,S,E",
       "sandwich norms: the third sub-layer's output normalised before the residual addition"},
      {StageId::Residual1, "residual1", S::Layer, "residual", "", "B,S,E",
       "x + self-attention(x): the residual stream"},
      {StageId::Residual2, "residual2", S::Layer, "residual", "", "B,S,E", "x + the second sub-layer's output"},
      {StageId::Residual3, "residual3", S::Layer, "residual", "", "B,S,E", "x + the third sub-layer's output"},
      {StageId::FfnHidden, "ffn.hidden", S::Layer, "ffn", "", "B,S,F", "linear1: each position widened to F"},
      {StageId::FfnGate, "ffn.gate", S::Layer, "ffn", "", "B,S,F", "gated FFN: gate_proj, each position widened to F"},
      {StageId::FfnUp, "ffn.up", S::Layer, "ffn", "", "B,S,F", "gated FFN: up_proj, each position widened to F"},
      {StageId::FfnActivated, "ffn.activated", S::Layer, "ffn", "", "B,S,F",
       "the activation applied element by element (gated: to the gate)"},
      {StageId::FfnProduct, "ffn.product", S::Layer, "ffn", "", "B,S,F",
       "gated FFN: activated gate × up, element by element"},
      {StageId::FfnOutput, "ffn.output", S::Layer, "ffn", "", "B,S,E", "linear2: back to E"},
      {StageId::LayerOutput, "output", S::Layer, "activations", "", "B,S,E", "the layer's output"},
      {StageId::Logits, "logits", S::Model, "logits", "", "B,S,V", "the output head: one score per vocabulary entry"},
  };
  return registry;
}

const StageInfo& stage_info(StageId id) { return stage_registry()[static_cast<std::size_t>(id)]; }

const char* to_string(StageScope scope) {
  switch (scope) {
    case StageScope::Model:
      return "model";
    case StageScope::Stack:
      return "stack";
    case StageScope::Layer:
      return "layer";
    case StageScope::Attention:
      return "attention";
  }
  return "?";
}

bool RecordFilter::matches(int layer, const std::string& name) const {
  if (layer >= 0 && !layers.empty()) {
    bool found = false;
    for (int l : layers) found = found || l == layer;
    if (!found) return false;
  }
  if (patterns.empty()) return true;
  for (const std::string& p : patterns)
    if (glob_match(p.c_str(), name.c_str())) return true;
  return false;
}

bool Recorder::wants(StageId id) const {
  return trace_ != nullptr && (filter_ == nullptr || filter_->matches(layer_, full_name(id)));
}

const Stage* Trace::find(int layer, const std::string& name) const {
  for (const Stage& s : stages)
    if (s.layer == layer && s.name == name) return &s;
  return nullptr;
}

}  // namespace attention
