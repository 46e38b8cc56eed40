// CheckpointLoader: hub .safetensors files, one at a time, into a new Transformer.
#include <algorithm>
#include <cmath>
#include <iterator>
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

const char* to_string(WeightsMode mode) {
  switch (mode) {
    case WeightsMode::F32:
      return "f32";
    case WeightsMode::Auto:
      return "auto";
    case WeightsMode::BF16:
      return "bf16";
    case WeightsMode::Q8_0:
      return "q8_0";
  }
  return "?";
}

namespace {

// The mode of `modes` named `text`, else an Error naming them all: "<field> must be 'a', 'b'
// or 'c', not '<text>'".
template <class Mode, std::size_t N>
Result<Mode> parse_mode(const Mode (&modes)[N], const std::string& text, const char* field) {
  std::string names;
  for (std::size_t i = 0; i < N; ++i) {
    if (text == to_string(modes[i])) return modes[i];
    names += (i == 0 ? "'" : i + 1 == N ? " or '" : ", '") + std::string(to_string(modes[i])) + "'";
  }
  return Error{std::string(field) + " must be " + names + ", not '" + text + "'", error_code::kInvalidArgument, field};
}

}  // namespace

Result<WeightsMode> parse_weights_mode(const std::string& text) { return parse_mode(kWeightsModes, text, "weights"); }

const char* to_string(Q8Activations mode) {
  return mode == Q8Activations::Int16 ? "int16" : mode == Q8Activations::Int8 ? "int8" : "f32";
}

Result<Q8Activations> parse_q8_activations(const std::string& text) {
  return parse_mode(kQ8ActivationsModes, text, "q8Activations");
}

struct CheckpointLoader::State {
  HubConfig config;
  LoadOptions options;
  Transformer model;
  std::map<std::string, HubTarget> targets;  // canonical hub name -> where it goes
  std::vector<std::string> slot_names;       // the main hub name of each slot, for messages
  std::vector<std::string> filled_by;        // per slot: the file's name for the tensor that filled it, or ""
  std::vector<std::pair<std::string, std::string>> skipped;
  std::set<const Parameter*> started;  // parameters some tensor has written to
  int read = 0;
  bool broken = false;  // an add_file failed: the model may be half written
};

CheckpointLoader::CheckpointLoader(std::unique_ptr<State> state) : state_(std::move(state)) {}
CheckpointLoader::CheckpointLoader(CheckpointLoader&&) noexcept = default;
CheckpointLoader& CheckpointLoader::operator=(CheckpointLoader&&) noexcept = default;
CheckpointLoader::~CheckpointLoader() = default;

Result<CheckpointLoader> CheckpointLoader::create(const HubConfig& config, const LoadOptions& options) {
  if (options.q8_activations != Q8Activations::F32 && options.weights != WeightsMode::Q8_0)
    return Error{std::string("q8Activations '") + to_string(options.q8_activations) + "' needs weights 'q8_0', not '" +
                     to_string(options.weights) + "'",
                 error_code::kInvalidArgument, "q8Activations"};
  // The matrices are made in their final storage (zeros), so no float copy of the model
  // is ever allocated; under Auto each one takes its file's dtype when its first tensor
  // arrives (BF16 until then: 2 bytes a value).
  const Storage storage = options.weights == WeightsMode::F32    ? Storage::F32
                          : options.weights == WeightsMode::Q8_0 ? Storage::Q8_0
                                                                 : Storage::BF16;  // Auto, BF16
  Result<Transformer> model = Transformer::create(config.spec, storage);
  if (!model) return model.error_value();
  auto state =
      std::unique_ptr<State>(new State{config, options, std::move(model).value(), {}, {}, {}, {}, {}, 0, false});
  state->targets = hub_targets(config.family, state->model, state->slot_names);
  state->filled_by.assign(state->slot_names.size(), "");
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

// Element i (in the hub's layout) of the values already written for `target`, widened.
float written_value(const HubTarget& target, std::size_t i) {
  const Parameter& p = *target.parameter;
  if (target.transpose) {  // hub (in, out) -> engine (out, in)
    const std::size_t in = static_cast<std::size_t>(target.hub_shape[0]),
                      out = static_cast<std::size_t>(target.hub_shape[1]);
    return p.widened_value((static_cast<std::size_t>(target.row_begin) + i % out) * in + i / out);
  }
  const std::size_t cols = p.shape().size() == 2 ? static_cast<std::size_t>(p.shape()[1]) : 1;
  return p.widened_value(static_cast<std::size_t>(target.row_begin) * cols + i);
}

// The bytes [offset, offset + n) of a file: in place when it is in memory, else read into
// `buffer` (so a file held outside the engine is copied in one piece at a time).
const std::uint8_t* bytes_at(const ByteSource& file, std::uint64_t offset, std::size_t n,
                             std::vector<std::uint8_t>& buffer) {
  if (const std::uint8_t* all = file.data()) return all + offset;
  buffer.resize(n);
  if (n > 0) file.read(offset, n, buffer.data());
  return buffer.data();
}

// `t` with its bytes at `bytes` (begin 0), for safetensors::decode on a tensor read apart.
safetensors::TensorInfo relative(const safetensors::TensorInfo& t) {
  safetensors::TensorInfo local = t;
  local.end = t.end - t.begin;
  local.begin = 0;
  return local;
}

// Element `element` (in the file's layout) of `t` is not finite: the loader's error.
Error non_finite(const safetensors::TensorInfo& t, std::size_t element, float value) {
  const char* what = std::isnan(value) ? "NaN" : value > 0 ? "+Infinity" : "-Infinity";
  return Error{"tensor '" + t.name + "': element " + std::to_string(element) + " is " + what, error_code::kNonFinite,
               t.name};
}

// Engine rows [r0, r0 + n) of `t` (cols floats each) into out, checked finite. `bytes`:
// not transposed, the bytes of those rows; transposed, the whole tensor, hub (in = cols, out).
Status read_rows(const safetensors::TensorInfo& t, const std::uint8_t* bytes, bool transpose, int cols, int r0, int n,
                 float* out) {
  const std::size_t size = t.element_size, count = static_cast<std::size_t>(n) * cols;
  if (!transpose) {
    for (std::size_t i = 0; i < count; ++i) out[i] = safetensors::decode_value(t.dtype, bytes + i * size);
  } else {
    const std::size_t width = static_cast<std::size_t>(t.shape[1]);
    for (int i = 0; i < cols; ++i) {
      const std::uint8_t* p = bytes + (static_cast<std::size_t>(i) * width + r0) * size;
      for (int r = 0; r < n; ++r, p += size)
        out[static_cast<std::size_t>(r) * cols + i] = safetensors::decode_value(t.dtype, p);
    }
  }
  for (std::size_t i = 0; i < count; ++i)
    if (!std::isfinite(out[i])) {
      const std::size_t r = static_cast<std::size_t>(r0) + i / cols, c = i % cols;
      return non_finite(t, transpose ? c * static_cast<std::size_t>(t.shape[1]) + r : r * cols + c, out[i]);
    }
  return Ok{};
}

constexpr int kScratchRows = 32;  // rows decoded at a time into a low-bit matrix

// Decodes `t` into the rows of a low-bit parameter, kScratchRows rows at a time (rounded
// or quantized by store_row; a 16-bit value stored in its own storage round-trips
// exactly). Not transposed, only those rows' bytes are read; transposed (GPT-2's Conv1D),
// the tensor's bytes once.
Status decode_into_low_bit(const safetensors::TensorInfo& t, const ByteSource& file, std::uint64_t section,
                           const HubTarget& target, std::vector<float>& scratch, std::vector<std::uint8_t>& raw) {
  Parameter& p = *target.parameter;
  const int cols = p.cols();
  const int rows = target.transpose ? target.hub_shape[1] : static_cast<int>(t.count / static_cast<std::size_t>(cols));
  const std::size_t row_size = static_cast<std::size_t>(cols) * t.element_size;
  const std::uint8_t* whole = target.transpose ? bytes_at(file, section + t.begin, t.end - t.begin, raw) : nullptr;
  scratch.resize(static_cast<std::size_t>(kScratchRows) * cols);
  for (int r0 = 0; r0 < rows; r0 += kScratchRows) {
    const int n = std::min(kScratchRows, rows - r0);
    const std::uint8_t* bytes =
        whole ? whole
              : bytes_at(file, section + t.begin + static_cast<std::uint64_t>(r0) * row_size, n * row_size, raw);
    if (Status s = read_rows(t, bytes, target.transpose, cols, r0, n, scratch.data()); !s) return s;
    for (int r = 0; r < n; ++r)
      store_row(p.storage(), scratch.data() + static_cast<std::size_t>(r) * cols, cols,
                p.mutable_row_bits(target.row_begin + r0 + r));
  }
  return Ok{};
}

// The storage a matrix takes under Auto for a tensor of `dtype`.
Storage storage_of(safetensors::DType dtype) {
  return dtype == safetensors::DType::BF16  ? Storage::BF16
         : dtype == safetensors::DType::F16 ? Storage::F16
                                            : Storage::F32;
}

// A second name of a tensor (HubTarget::alias_of) must hold the same values as the first:
// compared element by element after decoding, so F16 and F32 copies of one tensor agree.
// `first` is the tensor in this file that fills the slot, or null when an earlier file did.
// a, b: the bytes of `second` and of `first` (null when an earlier file filled the slot).
// rounded: the slot holds its values rounded on load (weights 'bf16', 'q8_0').
Status check_alias(const safetensors::TensorInfo& second, const safetensors::TensorInfo* first, const HubTarget& target,
                   const std::uint8_t* a, const std::uint8_t* b, const std::string& file_name,
                   const std::string& first_name, const std::string& why, bool rounded) {
  const Parameter& p = *target.parameter;
  if (!first && rounded && p.low_bit() && !target.transpose) {
    // The slot holds rounded or quantized values: the second tensor must store to the same bits.
    const int cols = p.cols(), rows = static_cast<int>(second.count / static_cast<std::size_t>(cols));
    std::vector<float> row(static_cast<std::size_t>(cols));
    std::vector<std::uint8_t> bits(p.row_bytes());
    for (int r = 0; r < rows; ++r) {
      const std::uint8_t* bytes = a + static_cast<std::size_t>(r) * cols * second.element_size;
      if (Status s = read_rows(second, bytes, false, cols, r, 1, row.data()); !s) return s;
      store_row(p.storage(), row.data(), cols, bits.data());
      if (!std::equal(bits.begin(), bits.end(), p.row_bits(target.row_begin + r)))
        return Error{file_name + ": tensor '" + second.name + "' and tensor '" + first_name + "' are one tensor (" +
                         why + "), but the file gives them different values (row " + std::to_string(r) + ")",
                     error_code::kTiedMismatch, second.name};
    }
    return Ok{};
  }
  for (std::size_t i = 0; i < second.count; ++i) {
    const float x = safetensors::decode_value(second.dtype, a + i * second.element_size);
    const float y =
        first ? safetensors::decode_value(first->dtype, b + i * first->element_size) : written_value(target, i);
    if (x != y)
      return Error{file_name + ": tensor '" + second.name + "' and tensor '" + first_name + "' are one tensor (" + why +
                       "), but the file gives them different values (element " + std::to_string(i) + ": " +
                       std::to_string(x) + " and " + std::to_string(y) + ")",
                   error_code::kTiedMismatch, second.name};
  }
  return Ok{};
}

}  // namespace

namespace {
class MemorySource : public ByteSource {
 public:
  MemorySource(const std::uint8_t* data, std::size_t size) : data_(data), size_(size) {}
  std::uint64_t size() const override { return size_; }
  void read(std::uint64_t offset, std::size_t n, std::uint8_t* out) const override {
    std::copy_n(data_ + offset, n, out);
  }
  const std::uint8_t* data() const override { return data_; }

 private:
  const std::uint8_t* data_;
  std::size_t size_;
};
}  // namespace

Status CheckpointLoader::add_file(const std::uint8_t* data, std::size_t size, const std::string& file_name,
                                  const std::vector<std::string>* expected) {
  return add_file(MemorySource(data, size), file_name, expected);
}

Status CheckpointLoader::add_file(const ByteSource& file, const std::string& file_name,
                                  const std::vector<std::string>* expected) {
  State& st = *state_;
  if (st.broken)
    return Error{"this loader failed on an earlier file; start again", error_code::kInvalidArgument, file_name};
  // The header only: read_index reads no further than 8 + its length (checked against the
  // file's size first).
  std::vector<std::uint8_t> header;
  const std::uint64_t size = file.size();
  std::uint64_t header_end = std::min<std::uint64_t>(size, 8);
  if (size >= 8) {
    std::uint8_t length[8];
    file.read(0, 8, length);
    std::uint64_t n = 0;
    for (int i = 7; i >= 0; --i) n = (n << 8) | length[i];
    if (n <= safetensors::kMaxHeaderBytes && n <= size - 8) header_end = 8 + n;
  }
  const std::uint8_t* head = bytes_at(file, 0, static_cast<std::size_t>(header_end), header);
  Result<safetensors::Index> index = safetensors::read_index(head, static_cast<std::size_t>(size), /*any_dtype=*/true);
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
      return tensor_error(file_name, *listed.begin(),
                          "is listed for this file in model.safetensors.index.json but missing",
                          error_code::kMissingTensor);
  }

  // Plan every tensor first (names, shapes, dtypes, second names' values), so a wrong file
  // writes nothing.
  std::vector<std::pair<const safetensors::TensorInfo*, const HubTarget*>> plan;
  std::vector<std::pair<const safetensors::TensorInfo*, const HubTarget*>> second_names;  // slot filled by another
  std::vector<std::pair<std::string, std::string>> skipped;
  std::map<int, const safetensors::TensorInfo*> slots_here;
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
      return tensor_error(
          file_name, t.name,
          "has shape " + shape_text(t.shape) + ", but config.json gives " + shape_text(target.hub_shape),
          error_code::kShapeMismatch);
    if (!t.decodable)
      return tensor_error(file_name, t.name, "is stored as " + t.dtype_name + "; the engine reads F32, F16 and BF16",
                          error_code::kUnsupportedDtype);
    const auto here = slots_here.find(target.slot);
    const std::string& earlier = st.filled_by[target.slot];
    const std::string& other = here != slots_here.end() ? here->second->name : earlier;
    if (!other.empty()) {  // the slot is filled: by this very name (twice), or by its other name
      if (canonical_name(family, other) == canonical)
        return tensor_error(file_name, t.name, "was given twice (also as '" + other + "')", error_code::kBadFile);
      second_names.emplace_back(&t, &target);
      continue;
    }
    slots_here.emplace(target.slot, &t);
    plan.emplace_back(&t, &target);
  }
  const std::uint64_t section = ix.data_offset;
  std::vector<std::uint8_t> raw, raw_first;  // tensors' bytes read apart (a file not in memory)
  for (const auto& [t, target] : second_names) {
    const auto here = slots_here.find(target->slot);
    const safetensors::TensorInfo* first = here != slots_here.end() ? here->second : nullptr;
    const std::string first_name = first ? first->name : st.filled_by[target->slot];
    // Whichever of the two names came first filled the slot; the reason lives on the alias.
    const HubTarget& alias = target->alias_of.empty() ? st.targets.at(canonical_name(family, first_name)) : *target;
    const std::uint8_t* a = bytes_at(file, section + t->begin, t->end - t->begin, raw);
    const std::uint8_t* b =
        first ? bytes_at(file, section + first->begin, first->end - first->begin, raw_first) : nullptr;
    const bool rounded = st.options.weights == WeightsMode::BF16 || st.options.weights == WeightsMode::Q8_0;
    if (Status same = check_alias(*t, first, *target, a, b, file_name, first_name, alias.alias_of, rounded); !same)
      return same;
    skipped.emplace_back(t->name, "the same values as '" + first_name + "' (" + alias.alias_of + ")");
  }

  // Decode straight into the parameters (through a scratch row block only to transpose).
  std::vector<float> scratch;
  for (const auto& [t, target] : plan) {
    Parameter& p = *target->parameter;
    if (st.options.weights == WeightsMode::Auto && p.low_bit() && p.storage() != storage_of(t->dtype))
      // A matrix not yet written takes this tensor's dtype; one whose parts differ is F32.
      p.set_storage(st.started.count(&p) ? Storage::F32 : storage_of(t->dtype));
    if (p.storage() == Storage::F32 && st.options.weights == WeightsMode::Auto &&
        static_cast<double>(st.model.weight_bytes().total()) > kMaxParameterBytes) {  // F32 files: 4 bytes a value
      st.broken = true;
      return tensor_error(file_name, t->name,
                          "is F32: held as F32 (weights 'auto') the model's parameters pass the limit of " +
                              std::to_string(static_cast<long long>(kMaxParameterBytes)) +
                              " bytes; load it with weights 'q8_0'",
                          error_code::kLimitExceeded);
    }
    st.started.insert(&p);
    const std::size_t cols = p.shape().size() == 2 ? static_cast<std::size_t>(p.shape()[1]) : 1;
    Status decoded = Ok{};
    if (p.low_bit()) {
      decoded = decode_into_low_bit(*t, file, section, *target, scratch, raw);
    } else {
      const std::uint8_t* bytes = bytes_at(file, section + t->begin, t->end - t->begin, raw);
      if (target->transpose) {
        float* values = p.mutable_data();
        scratch.resize(static_cast<std::size_t>(t->count));
        decoded = safetensors::decode(relative(*t), bytes, scratch.data());
        const std::size_t in = static_cast<std::size_t>(target->hub_shape[0]),
                          out = static_cast<std::size_t>(target->hub_shape[1]);
        if (decoded) transpose_into(scratch.data(), in, out, values);
      } else {
        decoded = safetensors::decode(relative(*t), bytes,
                                      p.mutable_data() + static_cast<std::size_t>(target->row_begin) * cols);
      }
    }
    if (!decoded) {
      st.broken = true;
      Error e = decoded.error_value();
      return Error{file_name + ": " + e.message, e.code, e.field};
    }
    st.filled_by[target->slot] = t->name;
    ++st.read;
  }
  st.skipped.insert(st.skipped.end(), skipped.begin(), skipped.end());
  return Ok{};
}

Result<Transformer> CheckpointLoader::finish() {
  State& st = *state_;
  if (st.broken) return Error{"this loader failed on an earlier file; start again", error_code::kInvalidArgument, ""};
  std::vector<std::string> missing;
  for (std::size_t s = 0; s < st.filled_by.size(); ++s)
    if (st.filled_by[s].empty()) missing.push_back(st.slot_names[s]);
  if (!missing.empty()) {
    std::string list;
    for (std::size_t i = 0; i < missing.size() && i < 5; ++i) list += (i ? ", " : "") + missing[i];
    if (missing.size() > 5) list += ", ...";
    return Error{"the checkpoint has no tensor '" + missing[0] + "' (" + std::to_string(missing.size()) + " of " +
                     std::to_string(st.filled_by.size()) + " missing: " + list + ")",
                 error_code::kMissingTensor, missing[0]};
  }
  for (Parameter* p : implicit_zero_parameters(st.config.family, st.model)) {
    p->set_storage(Storage::F32);  // (they are biases, F32 already)
    p->mutable_values().assign(p->size(), 0.0f);
  }
  if (st.options.q8_activations != Q8Activations::F32)
    st.model.visit_parameters([&](Parameter& p) {
      if (p.storage() == Storage::Q8_0) p.set_q8_activations(st.options.q8_activations);
    });
  // F16 matrices held Scaled where they can be (storage.hpp's F16Scale): no product then multiplies
  // a float32 denormal (Intel's microcode assists).
  st.model.visit_parameters([](Parameter& p) { p.set_f16_scale(F16Scale::Scaled); });
  st.broken = true;  // the model leaves; this loader is spent
  return std::move(st.model);
}

}  // namespace attention::pretrained
