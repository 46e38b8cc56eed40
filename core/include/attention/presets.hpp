#pragma once
// Weight presets for the playground model, all deterministic from the config:
// The playground model is a ModelSpec (playground_spec) whose parameters a preset fills:
//   random     - Xavier-uniform weights from the seed, zero biases, LayerNorm (1, 0).
//   identity   - W_q = W_k = W_v = W_o = I: each head attends by the similarity of
//                its slice of the token vectors (seed 002's explanation). FFN zero.
//   positional - heads built to attend by position alone, cycling through the
//                patterns previous token, next token, self, first token. Token
//                vectors and positions get separate halves of d_model so that a
//                head can read the position half (learned positions: pos.weight holds
//                the sinusoids in that half). FFN zero. With positions 'rope' the same
//                heads come from q and k biases that RoPE turns (nothing is added to the
//                token vectors); with 'alibi' the keys are zero, so every head attends by
//                ALiBi's distance penalty alone (nearest first, each head as steeply as its slope).
// Every preset fills the modern shapes too: K/V for kvHeads groups, a gated FFN's (2F, E).
// Token vectors come from the text: embedding_table() over the typed text's vocabulary.
#include <vector>

#include "attention/config.hpp"
#include "attention/embeddings.hpp"
#include "attention/layers.hpp"
#include "attention/multi_head.hpp"
#include "attention/spec.hpp"
#include "attention/tokenizer.hpp"
#include "attention/transformer.hpp"

namespace attention {

enum class PositionalPattern { Previous, Next, Self, First };

// Head h of the positional preset follows pattern h % 4 in the order above.
PositionalPattern positional_pattern(int head);
const char* to_string(PositionalPattern pattern);

EmbeddingLayout embedding_layout(const ModelConfig& config);

// Sequences the playground model takes (its maxSeq).
inline constexpr int kPlaygroundMaxSeq = kMaxTokensPerText;

// The architecture of the playground model for a config (vocabSize 1 until a text
// gives it a vocabulary): encoder / decoder mode are a single stack, causal in decoder
// mode; cross mode is an encoder–decoder with `layers` layers on each side.
ModelSpec playground_spec(const ModelConfig& config);

// Fills every parameter but the embedding table as the config's preset says.
// Assumes a valid config and a model made from playground_spec(config).
void fill_preset(Transformer& model, const ModelConfig& config);

// The attention weights of one preset layer (exposed for tests).
// kv_heads: H_kv of grouped-query attention (0 = heads); K/V head g reads what the first
// query head of its group reads.
MultiHeadWeights identity_attention(int d_model, int heads = 1, int kv_heads = 0);
MultiHeadWeights positional_attention(int d_model, int heads, const EmbeddingLayout& layout, int kv_heads = 0);
// The positional heads of a RoPE model, from biases alone (presets.cpp says how).
MultiHeadWeights positional_rope_attention(int d_model, int heads, int kv_heads, int rotary_dim);

}  // namespace attention
