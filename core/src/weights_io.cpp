#include "attention/weights_io.hpp"

#include <set>
#include <string>

#include "attention/safetensors.hpp"

namespace attention {

namespace {

std::string shape_text(const std::vector<int>& shape) {
  std::string out = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) out += (i ? ", " : "") + std::to_string(shape[i]);
  return out + "]";
}

}  // namespace

Status load_safetensors(Transformer& model, const std::uint8_t* data, std::size_t size) {
  if (Status s = model.writable(); !s) return s;  // weights held in 16 or 8 bits are read-only
  Result<safetensors::File> file = safetensors::read(data, size);
  if (!file) return file.error_value();
  const safetensors::File& f = file.value();

  // Check everything first; only then write, so a bad file changes nothing.
  std::vector<std::pair<Parameter*, const safetensors::Tensor*>> plan;
  std::set<std::string> expected;
  std::vector<std::string> missing;
  Status problem = Ok{};
  model.visit_parameters([&](Parameter& p) {
    expected.insert(p.name());
    const safetensors::Tensor* t = f.find(p.name());
    if (!t) {
      missing.push_back(p.name());
      return;
    }
    if (t->shape != p.shape() && problem)
      problem = Error{"tensor '" + p.name() + "' has shape " + shape_text(t->shape) +
                          " in the file, but the model's is " + shape_text(p.shape()),
                      error_code::kShapeMismatch, p.name()};
    plan.emplace_back(&p, t);
  });
  if (!missing.empty()) {
    std::string list;
    for (std::size_t i = 0; i < missing.size() && i < 5; ++i) list += (i ? ", " : "") + missing[i];
    if (missing.size() > 5) list += ", ...";
    return Error{"the weights file has no tensor '" + missing[0] + "' (" + std::to_string(missing.size()) + " of " +
                     std::to_string(expected.size()) + " parameters missing: " + list + ")",
                 error_code::kMissingTensor, missing[0]};
  }
  for (const safetensors::Tensor& t : f.tensors)
    if (!expected.count(t.name))
      return Error{"the weights file has a tensor '" + t.name + "' that this model does not have",
                   error_code::kUnexpectedTensor, t.name};
  if (!problem) return problem;
  for (auto& [parameter, tensor] : plan) *parameter = tensor->values;
  return Ok{};
}

std::vector<std::uint8_t> save_safetensors(const Transformer& model) {
  // Weights held in 16 or 8 bits are written widened to F32 (the file format's one dtype here).
  std::vector<std::vector<float>> widened;
  model.visit_parameters([&](const Parameter& p) {
    if (p.low_bit()) widened.push_back(p.widened());
  });
  std::vector<safetensors::TensorRef> refs;
  std::size_t next = 0;
  model.visit_parameters([&](const Parameter& p) {
    refs.push_back({p.name(), p.shape(), p.low_bit() ? widened[next++].data() : p.data()});
  });
  return safetensors::write(refs, {{"format", "pt"}, {"spec", to_json(model_spec_schema(), model.spec()).dump()}});
}

}  // namespace attention
