// Seed 000: "is the same linear layer applied to every row?" Yes: the per-row loop
// and the matrix form give the same (B, S, E_out) result.
#include "attention/linear.hpp"
#include "test_util.hpp"

using namespace attention;
using attention::testing::all_close;
using attention::testing::random_tensor;
using attention::testing::random_vector;

namespace {

LinearWeights random_linear(int out, int in, std::uint64_t seed) {
  LinearWeights w;
  w.in_features = in;
  w.out_features = out;
  w.weight = random_vector(static_cast<std::size_t>(out) * in, seed);
  w.bias = random_vector(static_cast<std::size_t>(out), seed + 1);
  return w;
}

}  // namespace

TEST(Linear, RowByRowLoopEqualsMatrixForm) {
  const Tensor x = random_tensor({"B", "S", "E"}, {2, 5, 6}, 11);
  const LinearWeights w = random_linear(7, 6, 12);
  const Tensor by_rows = linear_row_by_row(x, w, "E_out");
  const Tensor matrix = linear(x, w, "E_out", Backend::Fast);
  EXPECT_EQ(matrix.shape, (std::vector<int>{2, 5, 7}));
  EXPECT_EQ(matrix.axes, (std::vector<std::string>{"B", "S", "E_out"}));
  EXPECT_EQ(by_rows.shape, matrix.shape);
  EXPECT_TRUE(all_close(matrix.data, by_rows.data, 1e-6));
}

TEST(Linear, ReferenceAndEigenAgree) {
  for (int rows : {1, 3, 17}) {
    const Tensor x = random_tensor({"N", "E"}, {rows, 9}, 100 + rows);
    const LinearWeights w = random_linear(5, 9, 200 + rows);
    EXPECT_TRUE(all_close(linear(x, w, "F", Backend::Fast).data, linear(x, w, "F", Backend::Reference).data, 1e-6));
  }
}

TEST(Linear, ComputesXWTransposePlusBias) {
  // x = [[1, 2]], W = [[1, 0], [0, 1], [1, 1]], b = [0.5, -1, 0] -> [1.5, 1, 3]
  LinearWeights w{2, 3, {1, 0, 0, 1, 1, 1}, {0.5f, -1, 0}};
  const Tensor x({"S", "E"}, {1, 2}, {1, 2});
  EXPECT_EQ(linear(x, w, "F").data, (std::vector<float>{1.5f, 1.0f, 3.0f}));
  EXPECT_EQ(linear(x, w, "F", Backend::Reference).data, (std::vector<float>{1.5f, 1.0f, 3.0f}));
}
