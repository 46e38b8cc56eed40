// Every backward op against central finite differences, over odd shapes, for the
// reference (scalar GEMM) and the fast backend. Each test differentiates a scalar
// probe L = sum(w * out) with fixed random weights w, so every output element counts.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>

#include "attention/attention.hpp"
#include "attention/grad_ops.hpp"
#include "test_util.hpp"

using namespace attention;
using attention::testing::random_vector;

namespace {

using Floats = std::vector<float>;

double probe(const Floats& out, const Floats& w) {
  double sum = 0.0;
  for (std::size_t i = 0; i < out.size(); ++i) sum += static_cast<double>(out[i]) * w[i];
  return sum;
}

// d probe / d x[i] for every i, by central differences of a float32 function.
Floats numeric_gradient(Floats x, const std::function<double(const Floats&)>& f, float eps) {
  Floats g(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    const float keep = x[i];
    x[i] = keep + eps;
    const double up = f(x);
    x[i] = keep - eps;
    const double down = f(x);
    x[i] = keep;
    g[i] = static_cast<float>((up - down) / (2.0 * eps));
  }
  return g;
}

// |analytic - numeric| <= 1e-2 |numeric| + 2e-3: float32 central differences with eps 1e-2.
::testing::AssertionResult gradients_agree(const Floats& analytic, const Floats& numeric) {
  if (analytic.size() != numeric.size()) return ::testing::AssertionFailure() << "sizes differ";
  for (std::size_t i = 0; i < analytic.size(); ++i)
    if (std::fabs(analytic[i] - numeric[i]) > 1e-2 * std::fabs(numeric[i]) + 2e-3)
      return ::testing::AssertionFailure()
             << "element " << i << ": analytic " << analytic[i] << " vs numeric " << numeric[i];
  return ::testing::AssertionSuccess();
}

class GradOps : public ::testing::TestWithParam<Backend> {};

}  // namespace

TEST_P(GradOps, LinearMatchesFiniteDifferences) {
  const Backend backend = GetParam();
  const int rows = 5, in = 7, out = 3;
  const Floats x = random_vector(rows * in, 1), w = random_vector(out * in, 2), b = random_vector(out, 3);
  const Floats probe_w = random_vector(rows * out, 4);
  const auto forward = [&](const Floats& xx, const Floats& ww, const Floats& bb) {
    Floats y(rows * out);
    linear_rows(xx.data(), rows, in, ww.data(), bb.data(), out, y.data(), Backend::Reference);
    return probe(y, probe_w);
  };
  Floats dx(x.size(), 0.0f), dw(w.size(), 0.0f), db(b.size(), 0.0f);
  grad::linear_backward(x.data(), probe_w.data(), rows, in, out, w.data(), dx.data(), dw.data(), db.data(), backend);
  EXPECT_TRUE(gradients_agree(dx, numeric_gradient(
                                      x, [&](const Floats& v) { return forward(v, w, b); }, 1e-2f)));
  EXPECT_TRUE(gradients_agree(dw, numeric_gradient(
                                      w, [&](const Floats& v) { return forward(x, v, b); }, 1e-2f)));
  EXPECT_TRUE(gradients_agree(db, numeric_gradient(
                                      b, [&](const Floats& v) { return forward(x, w, v); }, 1e-2f)));
}

TEST_P(GradOps, LayerNormMatchesFiniteDifferences) {
  const int rows = 3, e = 9;
  const Floats x = random_vector(rows * e, 5, 2.0f), g = random_vector(e, 6), b = random_vector(e, 7);
  const Floats probe_w = random_vector(rows * e, 8);
  const auto forward = [&](const Floats& xx, const Floats& gg, const Floats& bb) {
    Floats y(x.size()), xhat(x.size()), inv(rows);
    grad::layer_norm_forward(xx.data(), rows, e, gg.data(), bb.data(), 1e-5f, y.data(), xhat.data(), inv.data());
    return probe(y, probe_w);
  };
  Floats y(x.size()), xhat(x.size()), inv(rows);
  grad::layer_norm_forward(x.data(), rows, e, g.data(), b.data(), 1e-5f, y.data(), xhat.data(), inv.data());
  Floats dx(x.size(), 0.0f), dg(e, 0.0f), db(e, 0.0f);
  grad::layer_norm_backward(probe_w.data(), xhat.data(), inv.data(), rows, e, g.data(), dx.data(), dg.data(),
                            db.data());
  EXPECT_TRUE(gradients_agree(dx, numeric_gradient(
                                      x, [&](const Floats& v) { return forward(v, g, b); }, 1e-2f)));
  EXPECT_TRUE(gradients_agree(dg, numeric_gradient(
                                      g, [&](const Floats& v) { return forward(x, v, b); }, 1e-2f)));
  EXPECT_TRUE(gradients_agree(db, numeric_gradient(
                                      b, [&](const Floats& v) { return forward(x, g, v); }, 1e-2f)));
}

TEST_P(GradOps, ActivationsMatchFiniteDifferences) {
  for (Activation a : {Activation::ReLU, Activation::GELU, Activation::GELUTanh}) {
    Floats x = random_vector(23, 9, 3.0f);
    for (float& v : x)
      if (std::fabs(v) < 0.05f) v = 0.3f;  // keep ReLU's kink out of the finite difference
    const Floats probe_w = random_vector(x.size(), 10);
    const auto forward = [&](const Floats& xx) {
      Floats y = xx;
      for (float& v : y) v = activate(v, a);
      return probe(y, probe_w);
    };
    Floats dx(x.size(), 0.0f);
    grad::activation_backward(x.data(), probe_w.data(), x.size(), a, dx.data());
    EXPECT_TRUE(gradients_agree(dx, numeric_gradient(x, forward, 1e-2f))) << static_cast<int>(a);
  }
}

TEST_P(GradOps, AttentionThroughMasksAndScaleMatchesFiniteDifferences) {
  const Backend backend = GetParam();
  const int batch = 2, heads = 3, sq = 4, sk = 5, dk = 3;
  const int qn = batch * heads * sq * dk, kn = batch * heads * sk * dk;
  const Floats q = random_vector(qn, 11), k = random_vector(kn, 12), v = random_vector(kn, 13);
  // Sequence 1: keys 3, 4 are padding; plus a blocked pair in sequence 0; and a row of
  // sequence 1 with every key blocked (its output and gradients must be 0, not NaN).
  Floats blocked(static_cast<std::size_t>(batch) * sq * sk, 0.0f);
  for (int i = 0; i < sq; ++i)
    for (int j = 3; j < sk; ++j) blocked[(1 * sq + i) * sk + j] = 1.0f;
  blocked[(0 * sq + 2) * sk + 1] = 1.0f;
  for (int j = 0; j < sk; ++j) blocked[(1 * sq + 3) * sk + j] = 1.0f;
  const Floats probe_w = random_vector(qn, 14);
  const Tensor mask({"B", "Sq", "Sk"}, {batch, sq, sk}, blocked);
  // The forward is the inference path's (attention.cpp); the backward takes its weights.
  const auto attend = [&](const Floats& qq, const Floats& kk, const Floats& vv, bool scaled, Backend be) {
    return scaled_dot_product_attention(Tensor({"B", "H", "Sq", "d_k"}, {batch, heads, sq, dk}, qq),
                                        Tensor({"B", "H", "Sk", "d_k"}, {batch, heads, sk, dk}, kk),
                                        Tensor({"B", "H", "Sk", "d_k"}, {batch, heads, sk, dk}, vv), &mask, scaled, be,
                                        /*keep_stages=*/false);
  };
  for (bool scaled : {true, false}) {
    const float scale = scaled ? 1.0f / std::sqrt(static_cast<float>(dk)) : 1.0f;
    const auto forward = [&](const Floats& qq, const Floats& kk, const Floats& vv) {
      return probe(attend(qq, kk, vv, scaled, Backend::Reference).output.data, probe_w);
    };
    const AttentionStages st = attend(q, k, v, scaled, backend);
    const Floats& p = st.weights.data;
    const Floats& ctx = st.output.data;
    for (float x : ctx) ASSERT_TRUE(std::isfinite(x));
    Floats dq(qn, 0.0f), dkk(kn, 0.0f), dv(kn, 0.0f);
    grad::attention_backward(q.data(), k.data(), v.data(), p.data(), probe_w.data(), batch, heads, sq, sk, dk, scale,
                             dq.data(), dkk.data(), dv.data(), backend);
    EXPECT_TRUE(gradients_agree(dq, numeric_gradient(
                                        q, [&](const Floats& x) { return forward(x, k, v); }, 1e-2f)));
    EXPECT_TRUE(gradients_agree(dkk, numeric_gradient(
                                         k, [&](const Floats& x) { return forward(q, x, v); }, 1e-2f)));
    EXPECT_TRUE(gradients_agree(dv, numeric_gradient(
                                        v, [&](const Floats& x) { return forward(q, k, x); }, 1e-2f)));
    // The fully blocked row: no gradient into its query.
    for (int h = 0; h < heads; ++h)
      for (int d = 0; d < dk; ++d) EXPECT_EQ(dq[((1 * heads + h) * sq + 3) * dk + d], 0.0f);
  }
}

TEST_P(GradOps, CrossEntropyIgnoresMinus100AndMatchesFiniteDifferences) {
  const int rows = 5, vocab = 7;
  const Floats logits = random_vector(rows * vocab, 15, 3.0f);
  const std::vector<int> targets = {3, -100, 0, 6, -100};
  Floats d(logits.size());
  int counted = 0;
  const double loss = grad::cross_entropy(logits.data(), targets.data(), rows, vocab, d.data(), &counted);
  EXPECT_EQ(counted, 3);
  // By hand: mean over the three counted rows of logsumexp - z_target.
  double expected = 0.0;
  for (int r : {0, 2, 3}) {
    double sum = 0.0;
    for (int j = 0; j < vocab; ++j) sum += std::exp(logits[r * vocab + j]);
    expected += std::log(sum) - logits[r * vocab + targets[r]];
  }
  EXPECT_NEAR(loss, expected / 3.0, 1e-6);
  Floats scratch(logits.size());
  const auto f = [&](const Floats& z) {
    int c = 0;
    return grad::cross_entropy(z.data(), targets.data(), rows, vocab, scratch.data(), &c);
  };
  EXPECT_TRUE(gradients_agree(d, numeric_gradient(logits, f, 1e-2f)));
  for (int j = 0; j < vocab; ++j) EXPECT_EQ(d[1 * vocab + j], 0.0f);
  const std::vector<int> none = {-100, -100, -100, -100, -100};
  EXPECT_EQ(grad::cross_entropy(logits.data(), none.data(), rows, vocab, d.data(), &counted), 0.0);
  EXPECT_EQ(counted, 0);
}

TEST_P(GradOps, MatrixProductsInEveryLayoutAccumulate) {
  const Backend backend = GetParam();
  const int m = 5, n = 7, k = 3;
  const Floats a = random_vector(m * k, 16), b_nn = random_vector(k * n, 17), b_nt = random_vector(n * k, 18);
  const Floats a_t = random_vector(k * m, 19);
  Floats nn(m * n, 1.0f), nt(m * n, 1.0f), tn(m * n, 1.0f);
  grad::matmul_nn(m, n, k, a.data(), b_nn.data(), nn.data(), backend);
  grad::matmul_nt(m, n, k, a.data(), b_nt.data(), nt.data(), backend);
  grad::matmul_tn(m, n, k, a_t.data(), b_nn.data(), tn.data(), backend);
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      double e_nn = 1, e_nt = 1, e_tn = 1;
      for (int p = 0; p < k; ++p) {
        e_nn += a[i * k + p] * b_nn[p * n + j];
        e_nt += a[i * k + p] * b_nt[j * k + p];
        e_tn += a_t[p * m + i] * b_nn[p * n + j];
      }
      EXPECT_NEAR(nn[i * n + j], e_nn, 1e-5);
      EXPECT_NEAR(nt[i * n + j], e_nt, 1e-5);
      EXPECT_NEAR(tn[i * n + j], e_tn, 1e-5);
    }
}

INSTANTIATE_TEST_SUITE_P(Backends, GradOps, ::testing::Values(Backend::Reference, Backend::Fast),
                         [](const ::testing::TestParamInfo<Backend>& info) {
                           return info.param == Backend::Reference ? "Reference" : "Fast";
                         });
