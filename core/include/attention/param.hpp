#pragma once
// A named parameter: the unit of a model's weights, as an entry of PyTorch's
// state_dict. It has a name (e.g. "layers.0.self_attn.in_proj_weight"), a shape, its
// values, room for a gradient, and a version that every write bumps.
//
// Reading is free (data(), operator[], values()); writing goes through
// mutable_values() / assign() / operator=, which bump the version. Data derived
// from the values (the panels the fast GEMM packs a weight into) is keyed by that
// version, so it is rebuilt on first use after a write and can never go stale.
//
// Storage (storage.hpp): values are float32 unless a loader made a matrix weight 16- or
// 8-bit (Storage::BF16, F16, Q8_0; rows of the (R, C) matrix, each row_bytes() long).
// Such a parameter is read-only, and has no floats to hand out: data(), values(),
// operator[], begin() and the writes are programming errors on it (they abort with the
// parameter's name, never read garbage). Code that may meet one reads through
// widen_rows() / widened(), multiplies through linear_parameter_rows() (linear.hpp), or
// refuses with writable()'s coded Error (kReadOnly) first.
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <string>
#include <vector>

#include "attention/page_aligned.hpp"
#include "attention/result.hpp"
#include "attention/storage.hpp"

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
  // A named (rows, cols) matrix of zeros held in `storage`.
  Parameter(std::string name, std::vector<int> shape, Storage storage);

  const std::string& name() const { return name_; }
  void set_name(std::string name) { name_ = std::move(name); }
  const std::vector<int>& shape() const { return shape_; }

  std::size_t size() const { return storage_ == Storage::F32 ? values_.size() : count_; }
  bool empty() const { return size() == 0; }
  // The float32 values: F32 storage only (see above).
  const float* data() const { return f32().data(); }
  const std::vector<float>& values() const { return f32(); }
  float operator[](std::size_t i) const { return f32()[i]; }
  std::vector<float>::const_iterator begin() const { return f32().begin(); }
  std::vector<float>::const_iterator end() const { return f32().end(); }

  // --- any storage ---
  Storage storage() const { return storage_; }
  bool low_bit() const { return storage_ != Storage::F32; }
  // Ok for F32; else an Error (kReadOnly, field = the name) saying why it cannot be written.
  Status writable() const;
  // Bytes the values take in memory.
  std::size_t bytes() const;
  int rows() const { return shape_.size() == 2 ? shape_[0] : 1; }
  int cols() const { return shape_.size() == 2 ? shape_[1] : static_cast<int>(size()); }
  // Rows [begin, begin + count) as float32 (count x cols() floats), exactly widened.
  void widen_rows(int begin, int count, float* out) const;
  // Every value as float32 (a copy, size() floats).
  std::vector<float> widened() const;
  // Value i (row-major), widened.
  float widened_value(std::size_t i) const;
  // Bytes of one row, and row r's bytes (low-bit storage only). Q8_0 interleaved by 4
  // (q8_layout()): a quarter of a group of 4 rows (storage.hpp's q8x4_row_bytes), and only rows
  // at multiples of 4 have bytes of their own (row 4g's are group g's).
  std::size_t row_bytes() const;
  const std::uint8_t* row_bits(int row) const { return bits_.data() + static_cast<std::size_t>(row) * row_bytes(); }
  // For loaders: row r's bytes to write, row-major (bumps the version; an interleaved Q8_0
  // matrix goes back to RowMajor first, a Scaled F16 one to AsIs).
  std::uint8_t* mutable_row_bits(int row);
  // Converts the values to `storage` (to 16 bits: rounded; to Q8_0: quantized; to F32:
  // widened exactly). A 2-D matrix may take any storage; other shapes only F32.
  void set_storage(Storage storage);

  // Writes. Each bumps the version; hold the reference only for the write at hand.
  std::vector<float>& mutable_values();
  float* mutable_data() { return mutable_values().data(); }
  // Replaces the values; keeps the shape when the count matches, else becomes 1-D.
  Parameter& operator=(std::vector<float> values);
  // Replaces shape and values together (sizes must agree; the caller checks).
  void reset(std::vector<int> shape, std::vector<float> values);

  std::uint64_t version() const { return version_; }

  // How products with this matrix take each row of activations (storage.hpp's Q8Activations:
  // rounded per block of 32 to int16 or int8 levels first, kernels.hpp's round_row,
  // LowBitGemmArgs::activations; set by a loader's q8Activations, docs/pretrained.md). F32 by default.
  // Setting it also lays a Q8_0 matrix's blocks out as its products read them fastest
  // (kernels' preferred_q8_layout: interleaved by 4 for Int16 and Int8 where the engine has that GEMV).
  Q8Activations q8_activations() const { return q8_activations_; }
  void set_q8_activations(Q8Activations mode);
  // Where a Q8_0 matrix's blocks lie (storage.hpp's Q8Layout; RowMajor for any other storage).
  // The values stay the same in either; widen_rows() and the products read both.
  Q8Layout q8_layout() const { return q8_layout_; }
  void set_q8_layout(Q8Layout layout);

  // How an F16 matrix's halves hold its values (storage.hpp's F16Scale; AsIs for any other
  // storage, and as set_storage() or a write leaves them). A loader holds a finished F16 matrix
  // Scaled (no F16 product then multiplies a float32 denormal); the values stay the same, and
  // widen_rows() and the products read both. Scaled is taken only where every finite |w| < 64
  // (f16_scalable): otherwise the matrix stays AsIs.
  F16Scale f16_scale() const { return f16_scale_; }
  void set_f16_scale(F16Scale scale);

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
  const std::vector<float>& f32() const {
    if (storage_ != Storage::F32) refuse_float_access();
    return values_;
  }
  [[noreturn]] void refuse_float_access() const;

  std::string name_;
  std::vector<int> shape_;
  std::vector<float> values_;  // F32 storage
  Storage storage_ = Storage::F32;
  // other storage: rows() x row_bytes() (Q8_0 interleaved: the rows rounded up to groups of 4), from a page on (a
  // decode step streams them: page_aligned.hpp)
  std::vector<std::uint8_t, PageAlignedAllocator<std::uint8_t>> bits_;
  std::size_t count_ = 0;  // other storage: the number of values
  std::uint64_t version_ = 0;
  Q8Activations q8_activations_ = Q8Activations::F32;
  Q8Layout q8_layout_ = Q8Layout::RowMajor;
  F16Scale f16_scale_ = F16Scale::AsIs;

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
