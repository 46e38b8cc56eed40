#pragma once
// Untrained, deterministic token embeddings: a token's vector is drawn from a
// generator seeded by (seed, the token's text with ASCII letters lower-cased), so
// the same word always gets the same vector and "The" equals "the". Values are
// uniform in [-sqrt(3), sqrt(3)), i.e. unit variance. They carry identity, not
// meaning: nothing here was trained.
#include <cstdint>
#include <string_view>
#include <vector>

#include "attention/tensor.hpp"
#include "attention/tokenizer.hpp"

namespace attention {

// -> (dim)
std::vector<float> token_embedding(std::string_view token, std::uint32_t seed, int dim);

// Where the parts of the residual stream live. Usually token vectors and
// positions share all d_model dims (added); the positional preset gives them
// separate halves so heads can read position alone.
struct EmbeddingLayout {
  int content_offset = 0, content_dim = 0;
  int position_offset = 0, position_dim = 0;
};

// -> (V, E): the embedding table of a text vocabulary, each token's vector in
// [content_offset, +content_dim); the padding row (id 0) is 0.
std::vector<float> embedding_table(const TextVocabulary& vocabulary, std::uint32_t seed, int d_model,
                                   const EmbeddingLayout& layout);

// -> (S, E): the sinusoidal encoding of width position_dim placed at position_offset.
Tensor positions_for(int seq_len, int d_model, const EmbeddingLayout& layout);

}  // namespace attention
