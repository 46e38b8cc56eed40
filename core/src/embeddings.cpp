#include "attention/embeddings.hpp"

#include <cmath>
#include <string>

#include "attention/positional.hpp"
#include "attention/random.hpp"

namespace attention {

std::vector<float> token_embedding(std::string_view token, std::uint32_t seed, int dim) {
  std::string key(token);
  for (char& c : key)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  SplitMix64 rng(hash_text(key) ^ (0xD1B54A32D192ED03ull * (static_cast<std::uint64_t>(seed) + 1)));
  const float amplitude = std::sqrt(3.0f);
  std::vector<float> vector(static_cast<std::size_t>(dim));
  for (float& v : vector) v = amplitude * rng.symmetric_unit();
  return vector;
}

Tensor embed_tokens(const TokenBatch& batch, std::uint32_t seed, int d_model, const EmbeddingLayout& layout) {
  const int b_count = static_cast<int>(batch.tokens.size());
  Tensor x({"B", "S", "E"}, {b_count, batch.padded_length, d_model});
  for (int b = 0; b < b_count; ++b)
    for (int s = 0; s < batch.lengths[b]; ++s) {
      const std::vector<float> v = token_embedding(batch.tokens[b][s], seed, layout.content_dim);
      for (int d = 0; d < layout.content_dim; ++d) x.at({b, s, layout.content_offset + d}) = v[d];
    }
  return x;
}

Tensor positions_for(int seq_len, int d_model, const EmbeddingLayout& layout) {
  const Tensor pe = sinusoidal_encoding(seq_len, layout.position_dim);
  Tensor out({"S", "E"}, {seq_len, d_model});
  for (int s = 0; s < seq_len; ++s)
    for (int d = 0; d < layout.position_dim; ++d) out.at({s, layout.position_offset + d}) = pe.at({s, d});
  return out;
}

}  // namespace attention
