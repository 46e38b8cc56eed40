#include "attention/param.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "attention/numeric.hpp"
#include "kernels/kernels.hpp"

namespace attention {

namespace {
// A fresh version for every write anywhere, so two parameters never share one by chance
// after a copy and a write.
std::uint64_t next_version() {
  static std::uint64_t counter = 0;
  return ++counter;
}
}  // namespace

std::size_t shape_elements(const std::vector<int>& shape) {
  std::size_t n = 1;
  for (int d : shape) n *= static_cast<std::size_t>(d);
  return n;
}

Parameter::Parameter(std::vector<float> values)
    : shape_{static_cast<int>(values.size())}, values_(std::move(values)), version_(next_version()) {}

Parameter::Parameter(std::string name, std::vector<int> shape, std::vector<float> values)
    : name_(std::move(name)), shape_(std::move(shape)), values_(std::move(values)), version_(next_version()) {
  if (values_.empty()) values_.assign(shape_elements(shape_), 0.0f);
}

Parameter::Parameter(std::string name, std::vector<int> shape, Storage storage)
    : name_(std::move(name)), shape_(std::move(shape)), version_(next_version()) {
  if (storage == Storage::F32 || shape_.size() != 2) {
    values_.assign(shape_elements(shape_), 0.0f);
    return;
  }
  // Zero in every storage is all-zero bytes (a Q8_0 block of zeros: d 0, q 0).
  storage_ = storage;
  count_ = shape_elements(shape_);
  bits_.assign(static_cast<std::size_t>(rows()) * row_bytes(), 0);
}

void Parameter::refuse_float_access() const {
  // A programming error, not bad input: user-facing paths check writable() or read
  // through widen_rows() first. Loud, never a read of the wrong bytes.
  std::fprintf(stderr, "attention: parameter '%s' is held as %s; its float values were asked for\n", name_.c_str(),
               to_string(storage_));
  std::abort();
}

Status Parameter::writable() const {
  if (storage_ == Storage::F32) return Ok{};
  return Error{"parameter '" + name_ + "' is held as " + to_string(storage_) +
                   " (read-only): load the checkpoint with weights 'f32' to train or write it",
               error_code::kReadOnly, name_};
}

std::size_t Parameter::bytes() const {
  return storage_ == Storage::F32 ? values_.size() * sizeof(float) : bits_.size();
}

std::size_t Parameter::row_bytes() const {
  return q8_layout_ == Q8Layout::Interleaved4 ? q8x4_row_bytes(cols()) : attention::row_bytes(storage_, cols());
}

void Parameter::widen_rows(int begin, int count, float* out) const {
  const int c = cols();
  if (storage_ == Storage::F32) {
    std::copy_n(values_.data() + static_cast<std::size_t>(begin) * c, static_cast<std::size_t>(count) * c, out);
    return;
  }
  if (q8_layout_ == Q8Layout::Interleaved4) {  // each row back to its row-major blocks first
    std::vector<std::uint8_t> row(attention::row_bytes(storage_, c));
    for (int r = 0; r < count; ++r) {
      deinterleave_q8_0(bits_.data(), c, begin + r, 1, row.data());
      widen_row(storage_, row.data(), c, out + static_cast<std::size_t>(r) * c);
    }
    return;
  }
  for (int r = 0; r < count; ++r)
    widen_row(storage_, row_bits(begin + r), c, out + static_cast<std::size_t>(r) * c, held_exponent(f16_scale_));
}

std::vector<float> Parameter::widened() const {
  std::vector<float> out(size());
  if (!out.empty()) widen_rows(0, rows(), out.data());
  return out;
}

float Parameter::widened_value(std::size_t i) const {
  if (storage_ == Storage::F32) return values_[i];
  const std::size_t c = static_cast<std::size_t>(cols());
  if (q8_layout_ == Q8Layout::Interleaved4)
    return widen_q8x4_value(bits_.data(), static_cast<int>(c), static_cast<int>(i / c), static_cast<int>(i % c));
  return widen_value(storage_, row_bits(static_cast<int>(i / c)), static_cast<int>(i % c), held_exponent(f16_scale_));
}

std::uint8_t* Parameter::mutable_row_bits(int row) {
  set_q8_layout(Q8Layout::RowMajor);
  set_f16_scale(F16Scale::AsIs);
  version_ = next_version();
  return bits_.data() + static_cast<std::size_t>(row) * row_bytes();
}

void Parameter::set_storage(Storage storage) {
  if (storage == storage_) return;
  if (storage != Storage::F32 && shape_.size() != 2) return;  // only matrices take low-bit storage
  const int r = rows(), c = cols();
  if (storage == Storage::F32) {  // widen, then drop the bits
    std::vector<float> values = widened();
    bits_ = {};
    count_ = 0;
    storage_ = Storage::F32;
    values_ = std::move(values);
  } else {
    const bool from_f32 = storage_ == Storage::F32;
    std::vector<float> row(static_cast<std::size_t>(c));
    decltype(bits_) bits(static_cast<std::size_t>(r) * attention::row_bytes(storage, c));
    for (int i = 0; i < r; ++i) {
      widen_rows(i, 1, row.data());
      store_row(storage, row.data(), c, bits.data() + static_cast<std::size_t>(i) * attention::row_bytes(storage, c));
    }
    if (from_f32) count_ = values_.size();
    values_ = {};
    bits_ = std::move(bits);
    storage_ = storage;
  }
  q8_layout_ = Q8Layout::RowMajor;  // the new bits are row-major
  f16_scale_ = F16Scale::AsIs;      // and the values as they are
  version_ = next_version();
  packed_.clear();
  if (storage_ == Storage::Q8_0) set_q8_layout(kernels::preferred_q8_layout(q8_activations_));
}

void Parameter::set_q8_activations(Q8Activations mode) {
  q8_activations_ = mode;
  if (storage_ == Storage::Q8_0) set_q8_layout(kernels::preferred_q8_layout(mode));
}

void Parameter::set_q8_layout(Q8Layout layout) {
  if (storage_ != Storage::Q8_0 || layout == q8_layout_) return;
  const int r = rows(), c = cols();
  decltype(bits_) bits;
  if (layout == Q8Layout::Interleaved4) {
    bits.resize(static_cast<std::size_t>((r + kQ8x4Rows - 1) / kQ8x4Rows) * q8x4_group_bytes(c));
    interleave_q8_0(bits_.data(), r, c, bits.data());
  } else {
    bits.resize(static_cast<std::size_t>(r) * attention::row_bytes(storage_, c));
    deinterleave_q8_0(bits_.data(), c, 0, r, bits.data());
  }
  bits_ = std::move(bits);
  q8_layout_ = layout;
  version_ = next_version();  // the same values, but anything keyed to the bytes starts over
}

void Parameter::set_f16_scale(F16Scale scale) {
  if (storage_ != Storage::F16 || scale == f16_scale_) return;
  if (scale == F16Scale::Scaled && !f16_scalable(bits_.data(), count_)) return;  // some |w| >= 64: as is
  scale_f16_halves(bits_.data(), count_, scale == F16Scale::Scaled ? kF16HeldExponent : -kF16HeldExponent);
  f16_scale_ = scale;
  version_ = next_version();  // the same values, but anything keyed to the bytes starts over
}

std::vector<float>& Parameter::mutable_values() {
  if (storage_ != Storage::F32) refuse_float_access();
  version_ = next_version();
  return values_;
}

Parameter& Parameter::operator=(std::vector<float> values) {
  if (storage_ != Storage::F32) refuse_float_access();
  if (values.size() != values_.size() || shape_.empty()) shape_ = {static_cast<int>(values.size())};
  values_ = std::move(values);
  version_ = next_version();
  return *this;
}

void Parameter::reset(std::vector<int> shape, std::vector<float> values) {
  if (storage_ != Storage::F32) refuse_float_access();
  shape_ = std::move(shape);
  values_ = std::move(values);
  version_ = next_version();
}

namespace {
// No 16-bit value of the storage has the exponent of inf / NaN (Q8_0: no scale has).
template <class Bits>
bool bits_finite(Storage storage, Q8Layout layout, const Bits& bits) {
  if (layout == Q8Layout::Interleaved4) {  // the 4 float32 scales leading each 144-byte block
    for (std::size_t i = 0; i < bits.size(); i += kQ8x4BlockBytes)
      for (int r = 0; r < kQ8x4Rows; ++r) {
        float d;
        std::memcpy(&d, bits.data() + i + 4 * r, sizeof d);
        if (!std::isfinite(d)) return false;
      }
    return true;
  }
  const std::uint16_t exponent = storage == Storage::BF16 ? 0x7f80 : 0x7c00;
  const std::size_t step = storage == Storage::Q8_0 ? kQ8BlockBytes : 2;
  for (std::size_t i = 0; i + 1 < bits.size(); i += step)
    if ((load_u16(bits.data() + i) & exponent) == exponent) return false;
  return true;
}
}  // namespace

bool Parameter::all_finite() const {
  if (finite_checked_version_ != version_) {
    finite_ = storage_ == Storage::F32 ? attention::all_finite(values_.data(), values_.size())
                                       : bits_finite(storage_, q8_layout_, bits_);
    finite_checked_version_ = version_;
  }
  return finite_;
}

const kernels::PackedWeight* Parameter::packed_rows(int row_begin, int rows, int cols) const {
  // Low-bit weights are never packed: the low-bit kernels read their rows in place, and
  // panels would be a second copy of the weight.
  if (storage_ != Storage::F32) return nullptr;
  // Packing costs about what one unpacked product does, so a weight is packed on its
  // second use at the same version: one-shot weights (a single multiHeadAttention call)
  // never pay for it; weights used again (a model's, prepared ones) get panels once.
  const auto pack = [&]() -> std::shared_ptr<const kernels::PackedWeight> {
    kernels::PackedWeight p = kernels::pack_weight(data() + static_cast<std::size_t>(row_begin) * cols, rows, cols);
    if (p.panels.empty()) return nullptr;
    return std::make_shared<const kernels::PackedWeight>(std::move(p));
  };
  for (PackedEntry& entry : packed_)
    if (entry.row_begin == row_begin && entry.rows == rows && entry.cols == cols) {
      if (entry.version != version_) {  // written since: start over
        entry.version = version_;
        entry.panels = nullptr;
        entry.packed = false;
        return nullptr;
      }
      if (!entry.packed) {
        entry.panels = pack();
        entry.packed = true;
      }
      return entry.panels.get();
    }
  packed_.push_back({row_begin, rows, cols, version_, nullptr, false});
  return nullptr;
}

}  // namespace attention
