#pragma once
// Weight presets for the playground model, all deterministic from the config:
//   random     - Xavier-uniform weights from the seed, zero biases, LayerNorm (1, 0).
//   identity   - W_q = W_k = W_v = W_o = I: each head attends by the similarity of
//                its slice of the token vectors (seed 002's explanation). FFN zero.
//   positional - heads built to attend by position alone, cycling through the
//                patterns previous token, next token, self, first token. Token
//                vectors and positions get separate halves of d_model so that a
//                head can read the position half. FFN zero.
#include <vector>

#include "attention/config.hpp"
#include "attention/embeddings.hpp"
#include "attention/layers.hpp"
#include "attention/multi_head.hpp"

namespace attention {

enum class PositionalPattern { Previous, Next, Self, First };

// Head h of the positional preset follows pattern h % 4 in the order above.
PositionalPattern positional_pattern(int head);
const char* to_string(PositionalPattern pattern);

EmbeddingLayout embedding_layout(const ModelConfig& config);

struct ModelWeights {
  std::vector<EncoderLayerWeights> encoder;  // encoder mode, decoder mode (causal), the source side of cross
  std::vector<DecoderLayerWeights> decoder;  // the target side of cross mode
};

// Assumes a valid config.
ModelWeights make_weights(const ModelConfig& config);

// The attention weights of one preset layer (exposed for tests).
MultiHeadWeights identity_attention(int d_model);
MultiHeadWeights positional_attention(int d_model, int heads, const EmbeddingLayout& layout);

}  // namespace attention
