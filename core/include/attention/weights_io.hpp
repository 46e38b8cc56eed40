#pragma once
// A model's parameters in and out of .safetensors files, under their state_dict names.
// Loading is strict and all-or-nothing: the file must hold exactly the model's
// parameters with their shapes (F32, F16 or BF16, finite); any problem is an Error
// naming the tensor, and the model is left exactly as it was.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "attention/result.hpp"
#include "attention/transformer.hpp"

namespace attention {

Status load_safetensors(Transformer& model, const std::uint8_t* data, std::size_t size);

// F32 tensors in state_dict order; metadata: format "pt" and the spec as JSON.
std::vector<std::uint8_t> save_safetensors(const Transformer& model);

}  // namespace attention
