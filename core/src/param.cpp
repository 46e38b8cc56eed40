#include "attention/param.hpp"

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

std::vector<float>& Parameter::mutable_values() {
  version_ = next_version();
  return values_;
}

Parameter& Parameter::operator=(std::vector<float> values) {
  if (values.size() != values_.size() || shape_.empty()) shape_ = {static_cast<int>(values.size())};
  values_ = std::move(values);
  version_ = next_version();
  return *this;
}

void Parameter::reset(std::vector<int> shape, std::vector<float> values) {
  shape_ = std::move(shape);
  values_ = std::move(values);
  version_ = next_version();
}

bool Parameter::all_finite() const {
  if (finite_checked_version_ != version_) {
    finite_ = attention::all_finite(data(), size());
    finite_checked_version_ = version_;
  }
  return finite_;
}

const kernels::PackedWeight* Parameter::packed_rows(int row_begin, int rows, int cols) const {
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
