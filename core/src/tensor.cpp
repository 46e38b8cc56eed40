#include "attention/tensor.hpp"

#include <cassert>
#include <sstream>

namespace attention {

std::size_t element_count(const std::vector<int>& shape) {
  std::size_t n = 1;
  for (int s : shape) n *= static_cast<std::size_t>(s);
  return n;
}

Tensor::Tensor(std::vector<std::string> axis_names, std::vector<int> sizes)
    : axes(std::move(axis_names)), shape(std::move(sizes)), data(element_count(shape), 0.0f) {
  assert(axes.size() == shape.size());
}

Tensor::Tensor(std::vector<std::string> axis_names, std::vector<int> sizes, std::vector<float> values)
    : axes(std::move(axis_names)), shape(std::move(sizes)), data(std::move(values)) {
  assert(axes.size() == shape.size());
  assert(data.size() == element_count(shape));
}

int Tensor::dim(const std::string& axis) const {
  for (std::size_t i = 0; i < axes.size(); ++i)
    if (axes[i] == axis) return shape[i];
  return -1;
}

static std::size_t flat_index(const std::vector<int>& shape, std::initializer_list<int> index) {
  assert(index.size() == shape.size());
  std::size_t flat = 0;
  std::size_t axis = 0;
  for (int i : index) {
    assert(i >= 0 && i < shape[axis]);
    flat = flat * static_cast<std::size_t>(shape[axis]) + static_cast<std::size_t>(i);
    ++axis;
  }
  return flat;
}

float& Tensor::at(std::initializer_list<int> index) { return data[flat_index(shape, index)]; }
float Tensor::at(std::initializer_list<int> index) const { return data[flat_index(shape, index)]; }

std::string Tensor::describe() const {
  std::ostringstream out;
  out << '(';
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (i) out << ", ";
    out << axes[i] << '=' << shape[i];
  }
  out << ')';
  return out.str();
}

}  // namespace attention
