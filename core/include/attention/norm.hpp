#pragma once
// The norms a ModelSpec can use, over the last axis of (..., E):
//   LayerNorm      (x - mean) / sqrt(var + eps) * w + b          (PyTorch's nn.LayerNorm)
//   RmsNorm        x / sqrt(mean(x^2) + eps) * w                 (Llama, Qwen; no bias, the mean stays)
//   RmsNormOffset  x / sqrt(mean(x^2) + eps) * (1 + w)           (Gemma; w starts at 0)
#include "attention/param.hpp"
#include "attention/tensor.hpp"

namespace attention {

enum class NormType { LayerNorm, RmsNorm, RmsNormOffset };

struct LayerNormWeights {
  Parameter weight;  // (E), gamma
  Parameter bias;    // (E), beta; empty for the RMSNorms
  float eps = 1e-5f;
  NormType type = NormType::LayerNorm;
};

// The constant the RMSNorms add to their weight: 1 for Gemma's form, else 0.
inline float norm_weight_offset(NormType type) { return type == NormType::RmsNormOffset ? 1.0f : 0.0f; }

// x: (..., E) normalised over its last axis by the weights' type.
Tensor layer_norm(const Tensor& x, const LayerNormWeights& w);

// The same on rows of a plain array: x, y (rows, e); y may be x. With xhat / inv_std
// given (rows x e, rows), keeps what the backward needs (1/std for LayerNorm, 1/rms for
// the RMSNorms).
void norm_rows(const float* x, int rows, int e, const LayerNormWeights& w, float* y, float* xhat = nullptr,
               float* inv_std = nullptr);

}  // namespace attention
