#pragma once
// A dense row-major float tensor that knows the names of its axes, e.g.
// axes {"B","S","E"} with shape {2,3,4}. The names travel with the data all the
// way to the UI, so every stage can say what its numbers mean.
#include <cstddef>
#include <string>
#include <vector>

namespace attention {

struct Tensor {
  std::vector<std::string> axes;
  std::vector<int> shape;
  std::vector<float> data;

  Tensor() = default;
  Tensor(std::vector<std::string> axis_names, std::vector<int> sizes);  // zero-filled
  Tensor(std::vector<std::string> axis_names, std::vector<int> sizes, std::vector<float> values);

  std::size_t size() const { return data.size(); }
  int rank() const { return static_cast<int>(shape.size()); }
  // Size of the axis with this name; -1 if absent.
  int dim(const std::string& axis) const;

  float* ptr() { return data.data(); }
  const float* ptr() const { return data.data(); }

  // Element access by full index, row-major: at({b, s, e}).
  float& at(std::initializer_list<int> index);
  float at(std::initializer_list<int> index) const;

  // "(B=2, S=3, E=4)", for messages and the demo.
  std::string describe() const;
};

// Number of elements a shape holds (1 for an empty shape).
std::size_t element_count(const std::vector<int>& shape);

}  // namespace attention
