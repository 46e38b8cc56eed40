#pragma once
// The passes a generation step makes over a row of V logits (the sampler's host work outside
// the forward): the largest logit, the first argmax, and the softmax's unnormalised weights
// with their sums. Each has a plain loop (the reference, `*_plain`) and, in builds with wasm
// SIMD, a vector twin that gives the same bits (tests/core/test_vocab_pass.cpp); the
// unsuffixed name is the one the build runs. Every function needs n >= 1.
namespace attention::vocab_pass {

// *std::max_element(x, x + n): the largest value, or NaN when x[0] is NaN (a later NaN is
// never the largest).
float max_value(const float* x, int n);
float max_value_plain(const float* x, int n);

// std::max_element(x, x + n) - x: the lowest index among equal maxima (0 when x[0] is NaN).
int argmax(const float* x, int n);
int argmax_plain(const float* x, int n);

// The softmax's weights over scores s (V): w_i = std::exp(s_i - top), 0 where s_i is -inf,
// and, summed in index order, sum = sum w_i and expected_gap = sum over w_i > 0 of
// w_i (s_i - top) (the entropy's term, sampler.hpp's Distribution).
struct WeightSums {
  double sum = 0;
  double expected_gap = 0;
};
// s_i = logits[i] as a double, divided by `divisor` unless it is 1 (a temperature), read
// straight from the float logits: no copy of the row first.
WeightSums exp_weights(const float* logits, int n, double divisor, double top, double* w);
WeightSums exp_weights_plain(const float* logits, int n, double divisor, double top, double* w);
// s_i = scores[i]; `w` may be `scores` (in place).
WeightSums exp_weights(const double* scores, int n, double top, double* w);
WeightSums exp_weights_plain(const double* scores, int n, double top, double* w);

// The first index i in [from, n) where !(w[i] <= floor) (a NaN counts as above), else n:
// the scan for the next candidate (top_candidates) that skips a block of weights at once.
int next_above(const double* w, int from, int n, double floor);
int next_above_plain(const double* w, int from, int n, double floor);

// std::exp of each in[i], bit for bit (the vector twin is libm's own algorithm, lane by lane,
// on libm's own table; tested against std::exp over many values). `out` may be `in`.
void exp_each(const double* in, int n, double* out);
void exp_each_plain(const double* in, int n, double* out);

}  // namespace attention::vocab_pass
