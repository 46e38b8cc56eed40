// CheckpointLoader: hub .safetensors files, one at a time, into a new Transformer.
#include <algorithm>
#include <set>

#include "attention/safetensors.hpp"
#include "hub_names.hpp"

namespace attention::pretrained {

namespace {

std::string shape_text(const std::vector<int>& shape) {
  std::string out = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) out += (i ? ", " : "") + std::to_string(shape[i]);
  return out + "]";
}

Error tensor_error(const std::string& file, const std::string& name, const std::string& problem, const char* code) {
  return Error{file + ": tensor '" + name + "' " + problem, code, name};
}

}  // namespace

struct CheckpointLoader::State {
  HubConfig config;
  Transformer model;
  std::map<std::string, HubTarget> targets;  // canonical hub name -> where it goes
  std::vector<std::string> slot_names;       // a hub name of each slot, for messages
  std::vector<bool> filled;                  // per slot
  std::vector<std::pair<std::string, std::string>> skipped;
  int read = 0;
  bool broken = false;  // an add_file failed: the model may be half written
};

CheckpointLoader::CheckpointLoader(std::unique_ptr<State> state) : state_(std::move(state)) {}
CheckpointLoader::CheckpointLoader(CheckpointLoader&&) noexcept = default;
CheckpointLoader& CheckpointLoader::operator=(CheckpointLoader&&) noexcept = default;
CheckpointLoader::~CheckpointLoader() = default;

Result<CheckpointLoader> CheckpointLoader::create(const HubConfig& config) {
  Result<Transformer> model = Transformer::create(config.spec);
  if (!model) return model.error_value();
  auto state = std::unique_ptr<State>(new State{config, std::move(model).value(), {}, {}, {}, {}, 0, false});
  int slots = 0;
  state->targets = hub_targets(config.family, state->model, slots);
  state->slot_names.resize(static_cast<std::size_t>(slots));
  for (const auto& [name, target] : state->targets)
    if (state->slot_names[target.slot].empty()) state->slot_names[target.slot] = name;
  state->filled.assign(static_cast<std::size_t>(slots), false);
  return CheckpointLoader(std::move(state));
}

int CheckpointLoader::tensors_read() const { return state_->read; }
const std::vector<std::pair<std::string, std::string>>& CheckpointLoader::skipped() const { return state_->skipped; }

namespace {

// hub (in, out) -> engine (out, in): engine[o][i] = hub[i][o]. In 32 x 32 tiles, so the
// strided side stays in cache (row by row it took seconds for GPT-2 small's Conv1D weights).
void transpose_into(const float* hub, std::size_t in, std::size_t out, float* engine) {
  constexpr std::size_t kTile = 32;
  for (std::size_t i0 = 0; i0 < in; i0 += kTile)
    for (std::size_t o0 = 0; o0 < out; o0 += kTile) {
      const std::size_t i_end = std::min(in, i0 + kTile), o_end = std::min(out, o0 + kTile);
      for (std::size_t o = o0; o < o_end; ++o)
        for (std::size_t i = i0; i < i_end; ++i) engine[o * in + i] = hub[i * out + o];
    }
}

}  // namespace

Status CheckpointLoader::add_file(const std::uint8_t* data, std::size_t size, const std::string& file_name,
                                  const std::vector<std::string>* expected) {
  State& st = *state_;
  if (st.broken) return Error{"this loader failed on an earlier file; start again", error_code::kInvalidArgument, file_name};
  Result<safetensors::Index> index = safetensors::read_index(data, size, /*any_dtype=*/true);
  if (!index) {
    Error e = index.error_value();
    return Error{file_name + ": " + e.message, e.code, e.field.empty() ? file_name : e.field};
  }
  const safetensors::Index& ix = index.value();
  const Family family = st.config.family;

  if (expected) {  // the shard index and the shard must agree exactly
    std::set<std::string> listed(expected->begin(), expected->end());
    for (const safetensors::TensorInfo& t : ix.tensors)
      if (!listed.erase(t.name))
        return tensor_error(file_name, t.name, "is not listed for this file in model.safetensors.index.json",
                            error_code::kUnexpectedTensor);
    if (!listed.empty())
      return tensor_error(file_name, *listed.begin(), "is listed for this file in model.safetensors.index.json but missing",
                          error_code::kMissingTensor);
  }

  // Plan every tensor first (names, shapes, dtypes), so a wrong file writes nothing.
  std::vector<std::pair<const safetensors::TensorInfo*, const HubTarget*>> plan;
  std::vector<std::pair<std::string, std::string>> skipped;
  std::set<int> slots_here;
  for (const safetensors::TensorInfo& t : ix.tensors) {
    const std::string canonical = canonical_name(family, t.name);
    auto it = st.targets.find(canonical);
    if (it == st.targets.end()) {
      std::string why = skip_reason(family, st.config.spec, canonical);
      if (why.empty())
        return tensor_error(file_name, t.name,
                            std::string("is not part of a ") + to_string(family) + " model of this config",
                            error_code::kUnexpectedTensor);
      skipped.emplace_back(t.name, std::move(why));
      continue;
    }
    const HubTarget& target = it->second;
    if (t.shape != target.hub_shape)
      return tensor_error(file_name, t.name,
                          "has shape " + shape_text(t.shape) + ", but config.json gives " + shape_text(target.hub_shape),
                          error_code::kShapeMismatch);
    if (!t.decodable)
      return tensor_error(file_name, t.name, "is stored as " + t.dtype_name + "; the engine reads F32, F16 and BF16",
                          error_code::kUnsupportedDtype);
    if (st.filled[target.slot] || !slots_here.insert(target.slot).second)
      return tensor_error(file_name, t.name, "was given twice (also as '" + st.slot_names[target.slot] + "')",
                          error_code::kBadFile);
    plan.emplace_back(&t, &target);
  }

  // Decode straight into the parameters (through a scratch row block only to transpose).
  const std::uint8_t* section = data + ix.data_offset;
  std::vector<float> scratch;
  for (const auto& [t, target] : plan) {
    Parameter& p = *target->parameter;
    const std::size_t cols = p.shape().size() == 2 ? static_cast<std::size_t>(p.shape()[1]) : 1;
    float* values = p.mutable_data();
    Status decoded = Ok{};
    if (target->transpose) {
      scratch.resize(static_cast<std::size_t>(t->count));
      decoded = safetensors::decode(*t, section, scratch.data());
      const std::size_t in = static_cast<std::size_t>(target->hub_shape[0]), out = static_cast<std::size_t>(target->hub_shape[1]);
      if (decoded) transpose_into(scratch.data(), in, out, values);
    } else {
      decoded = safetensors::decode(*t, section, values + static_cast<std::size_t>(target->row_begin) * cols);
    }
    if (!decoded) {
      st.broken = true;
      Error e = decoded.error_value();
      return Error{file_name + ": " + e.message, e.code, e.field};
    }
    st.filled[target->slot] = true;
    ++st.read;
  }
  st.skipped.insert(st.skipped.end(), skipped.begin(), skipped.end());
  return Ok{};
}

Result<Transformer> CheckpointLoader::finish() {
  State& st = *state_;
  if (st.broken) return Error{"this loader failed on an earlier file; start again", error_code::kInvalidArgument, ""};
  std::vector<std::string> missing;
  for (std::size_t s = 0; s < st.filled.size(); ++s)
    if (!st.filled[s]) missing.push_back(st.slot_names[s]);
  if (!missing.empty()) {
    std::string list;
    for (std::size_t i = 0; i < missing.size() && i < 5; ++i) list += (i ? ", " : "") + missing[i];
    if (missing.size() > 5) list += ", ...";
    return Error{"the checkpoint has no tensor '" + missing[0] + "' (" + std::to_string(missing.size()) + " of " +
                     std::to_string(st.filled.size()) + " missing: " + list + ")",
                 error_code::kMissingTensor, missing[0]};
  }
  for (Parameter* p : implicit_zero_parameters(st.config.family, st.model)) p->mutable_values().assign(p->size(), 0.0f);
  st.broken = true;  // the model leaves; this loader is spent
  return std::move(st.model);
}

}  // namespace attention::pretrained
