#pragma once
// A named parameter: the unit of a model's weights, as an entry of PyTorch's
// state_dict. It has a name (e.g. "layers.0.self_attn.in_proj_weight"), a shape, its
// values, room for a gradient, and a version that every write bumps.
//
// Reading is free (data(), operator[], values()); writing goes through
// mutable_values() / assign() / operator=, which bump the version. Data derived
// from the values (the panels the fast GEMM packs a weight into) is keyed by that
// version, so it is rebuilt on first use after a write and can never go stale.
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <string>
#include <vector>

namespace attention {

namespace kernels {
struct PackedWeight;  // a weight laid out for the fast GEMM (core/kernels)
}

class Parameter {
 public:
  Parameter() = default;
  // An unnamed 1-D parameter (convenient for tests and one-off layers).
  Parameter(std::vector<float> values);  // NOLINT: implicit on purpose
  Parameter(std::initializer_list<float> values) : Parameter(std::vector<float>(values)) {}  // NOLINT
  // A named parameter; zero-filled when `values` is empty.
  Parameter(std::string name, std::vector<int> shape, std::vector<float> values = {});

  const std::string& name() const { return name_; }
  void set_name(std::string name) { name_ = std::move(name); }
  const std::vector<int>& shape() const { return shape_; }

  std::size_t size() const { return values_.size(); }
  bool empty() const { return values_.empty(); }
  const float* data() const { return values_.data(); }
  const std::vector<float>& values() const { return values_; }
  float operator[](std::size_t i) const { return values_[i]; }
  std::vector<float>::const_iterator begin() const { return values_.begin(); }
  std::vector<float>::const_iterator end() const { return values_.end(); }

  // Writes. Each bumps the version; hold the reference only for the write at hand.
  std::vector<float>& mutable_values();
  float* mutable_data() { return mutable_values().data(); }
  // Replaces the values; keeps the shape when the count matches, else becomes 1-D.
  Parameter& operator=(std::vector<float> values);
  // Replaces shape and values together (sizes must agree; the caller checks).
  void reset(std::vector<int> shape, std::vector<float> values);

  std::uint64_t version() const { return version_; }

  // No NaN or infinity among the values: checked once per version (a model's forward
  // asks for every weight on every call).
  bool all_finite() const;

  // Room for a gradient: the same size as the values once training allocates it.
  std::vector<float> grad;

  // Rows [row_begin, row_begin + rows) of this (R, cols) matrix, packed for the fast
  // GEMM at the current version: null on the first use after a write (the product then
  // packs on the way, as for any one-shot weight), packed panels from the second use
  // on; always null where the fast GEMM does not pack (natively).
  const kernels::PackedWeight* packed_rows(int row_begin, int rows, int cols) const;

 private:
  std::string name_;
  std::vector<int> shape_;
  std::vector<float> values_;
  std::uint64_t version_ = 0;

  struct PackedEntry {
    int row_begin, rows, cols;
    std::uint64_t version;
    std::shared_ptr<const kernels::PackedWeight> panels;  // null: nothing to pack here (yet)
    bool packed;                                          // panels made for this version
  };
  mutable std::vector<PackedEntry> packed_;
  mutable std::uint64_t finite_checked_version_ = ~std::uint64_t{0};
  mutable bool finite_ = false;
};

// Number of elements of a shape (1 for an empty shape), for parameter shapes.
std::size_t shape_elements(const std::vector<int>& shape);

}  // namespace attention
