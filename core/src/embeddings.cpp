#include "attention/embeddings.hpp"

#include <cmath>
#include <string>

#include "attention/positional.hpp"
#include "attention/random.hpp"

namespace attention {

std::vector<float> token_embedding(std::string_view token, std::uint32_t seed, int dim) {
  const std::string key = TextVocabulary::key_of(token);
  SplitMix64 rng(hash_text(key) ^ (0xD1B54A32D192ED03ull * (static_cast<std::uint64_t>(seed) + 1)));
  const float amplitude = std::sqrt(3.0f);
  std::vector<float> vector(static_cast<std::size_t>(dim));
  for (float& v : vector) v = amplitude * rng.symmetric_unit();
  return vector;
}

std::vector<float> embedding_table(const TextVocabulary& vocabulary, std::uint32_t seed, int d_model,
                                   const EmbeddingLayout& layout) {
  std::vector<float> table(static_cast<std::size_t>(vocabulary.size()) * d_model, 0.0f);
  for (int id = 1; id < vocabulary.size(); ++id) {
    const std::vector<float> v = token_embedding(vocabulary.keys()[id], seed, layout.content_dim);
    std::copy(v.begin(), v.end(), table.begin() + static_cast<std::ptrdiff_t>(id) * d_model + layout.content_offset);
  }
  return table;
}

Tensor positions_for(int seq_len, int d_model, const EmbeddingLayout& layout) {
  const Tensor pe = sinusoidal_encoding(seq_len, layout.position_dim);
  Tensor out({"S", "E"}, {seq_len, d_model});
  for (int s = 0; s < seq_len; ++s)
    for (int d = 0; d < layout.position_dim; ++d) out.at({s, layout.position_offset + d}) = pe.at({s, d});
  return out;
}

}  // namespace attention
