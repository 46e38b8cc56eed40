// Agreement with PyTorch 1.13 (nn.MultiheadAttention, nn.TransformerEncoderLayer,
// nn.TransformerDecoderLayer), on fixtures written by
// tests/reference/generate_fixtures.py. Tolerance: 1e-5 relative to max(1, |expected|).
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "attention/layers.hpp"
#include "attention/masks.hpp"
#include "attention/multi_head.hpp"
#include "test_util.hpp"

using namespace attention;
using attention::testing::all_close;
using json = nlohmann::json;

namespace {

constexpr double kTolerance = 1e-5;

json load(const std::string& file) {
  std::ifstream in(std::string(ATTENTION_FIXTURE_DIR) + "/" + file);
  EXPECT_TRUE(in.good()) << "missing fixture " << file;
  return json::parse(in);
}

std::vector<float> floats(const json& j) { return j.get<std::vector<float>>(); }
std::vector<double> doubles(const json& j) { return j.get<std::vector<double>>(); }

MultiHeadWeights mha_weights(const json& j, const std::string& prefix, int e) {
  MultiHeadWeights w;
  w.embed_dim = e;
  w.in_proj_weight = floats(j[prefix + "in_proj_weight"]);
  w.in_proj_bias = floats(j[prefix + "in_proj_bias"]);
  w.out_proj_weight = floats(j[prefix + "out_proj_weight"]);
  w.out_proj_bias = floats(j[prefix + "out_proj_bias"]);
  return w;
}

LayerNormWeights norm(const json& w, const std::string& name) {
  return {floats(w[name + ".weight"]), floats(w[name + ".bias"]), 1e-5f};
}

FeedForwardWeights ffn(const json& w, int e, int f) {
  return {LinearWeights{e, f, floats(w["linear1.weight"]), floats(w["linear1.bias"])},
          LinearWeights{f, e, floats(w["linear2.weight"]), floats(w["linear2.bias"])}};
}

LayerOptions layer_options(const json& c, Backend backend) {
  LayerOptions o;
  o.heads = c["heads"];
  o.norm = c["norm_first"].get<bool>() ? NormPlacement::Pre : NormPlacement::Post;
  o.activation = c["activation"] == "gelu" ? Activation::GELU : Activation::ReLU;
  o.backend = backend;
  return o;
}

class PyTorchReference : public ::testing::TestWithParam<Backend> {};

}  // namespace

TEST_P(PyTorchReference, MultiheadAttention) {
  const json fixture = load("mha.json");
  ASSERT_GE(fixture["cases"].size(), 7u);
  for (const json& c : fixture["cases"]) {
    SCOPED_TRACE(c["name"].get<std::string>());
    const int b = c["batch"], sq = c["query_len"], sk = c["key_len"], e = c["embed_dim"];
    const Tensor query({"B", "Sq", "E"}, {b, sq, e}, floats(c["query"]));
    const Tensor key({"B", "Sk", "E"}, {b, sk, e}, floats(c["key"]));
    const Tensor value({"B", "Sk", "E"}, {b, sk, e}, floats(c["value"]));
    Tensor padding, user;
    MultiHeadOptions options;
    options.heads = c["heads"];
    options.causal = c["causal"];
    options.backend = GetParam();
    if (!c["key_padding_mask"].is_null()) {
      padding = Tensor({"B", "Sk"}, {b, sk}, floats(c["key_padding_mask"]));
      options.key_padding_mask = &padding;
    }
    if (!c["attn_mask"].is_null()) {
      user = Tensor({"Sq", "Sk"}, {sq, sk}, floats(c["attn_mask"]));
      options.attn_mask = &user;
    }
    Result<MultiHeadResult> r = multi_head_attention(query, key, value, mha_weights(c, "", e), options);
    ASSERT_TRUE(r.ok()) << r.error();
    EXPECT_TRUE(all_close(r.value().output.data, doubles(c["expected_output"]), kTolerance));
    EXPECT_TRUE(all_close(r.value().weights.data, doubles(c["expected_weights"]), kTolerance));
  }
}

// All of nn.MultiheadAttention: bias=False, kdim/vdim, a float attn_mask (-inf as null),
// need_weights=False and average_attn_weights=True (tests/reference/fixtures/mha_options.json).
TEST_P(PyTorchReference, MultiheadAttentionOptions) {
  const json fixture = load("mha_options.json");
  ASSERT_GE(fixture["cases"].size(), 7u);
  const auto optional_floats = [](const json& j) { return j.is_null() ? std::vector<float>{} : floats(j); };
  for (const json& c : fixture["cases"]) {
    SCOPED_TRACE(c["name"].get<std::string>());
    const int b = c["batch"], sq = c["query_len"], sk = c["key_len"], e = c["embed_dim"];
    const int kdim = c["kdim"], vdim = c["vdim"];
    MultiHeadWeights w;
    w.embed_dim = e;
    w.kdim = kdim;
    w.vdim = vdim;
    w.in_proj_weight = optional_floats(c["in_proj_weight"]);
    w.q_proj_weight = optional_floats(c["q_proj_weight"]);
    w.k_proj_weight = optional_floats(c["k_proj_weight"]);
    w.v_proj_weight = optional_floats(c["v_proj_weight"]);
    w.in_proj_bias = optional_floats(c["in_proj_bias"]);
    w.out_proj_weight = floats(c["out_proj_weight"]);
    w.out_proj_bias = optional_floats(c["out_proj_bias"]);
    const Tensor query({"B", "Sq", "E"}, {b, sq, e}, floats(c["query"]));
    const Tensor key({"B", "Sk", "kdim"}, {b, sk, kdim}, floats(c["key"]));
    const Tensor value({"B", "Sk", "vdim"}, {b, sk, vdim}, floats(c["value"]));
    Tensor padding, user, additive;
    MultiHeadOptions options;
    options.heads = c["heads"];
    options.backend = GetParam();
    options.need_weights = c["need_weights"];
    options.average_weights = c["average_attn_weights"];
    if (!c["key_padding_mask"].is_null()) {
      padding = Tensor({"B", "Sk"}, {b, sk}, floats(c["key_padding_mask"]));
      options.key_padding_mask = &padding;
    }
    if (!c["attn_mask_bool"].is_null()) {
      user = Tensor({"Sq", "Sk"}, {sq, sk}, floats(c["attn_mask_bool"]));
      options.attn_mask = &user;
    }
    if (!c["attn_mask_float"].is_null()) {
      std::vector<float> values;
      for (const json& v : c["attn_mask_float"]) values.push_back(v.is_null() ? -INFINITY : v.get<float>());
      additive = Tensor({"Sq", "Sk"}, {sq, sk}, values);
      options.attn_bias = &additive;
    }
    // Self-attention cases pass one tensor three times, as PyTorch's callers do.
    const bool self = c["name"].get<std::string>().find("self") != std::string::npos && kdim == e && vdim == e &&
                      floats(c["query"]) == floats(c["key"]);
    Result<MultiHeadResult> r = self ? multi_head_attention(query, query, query, w, options)
                                     : multi_head_attention(query, key, value, w, options);
    ASSERT_TRUE(r.ok()) << r.error();
    EXPECT_TRUE(all_close(r.value().output.data, doubles(c["expected_output"]), kTolerance));
    if (c["expected_weights"].is_null()) {
      EXPECT_TRUE(r.value().weights.data.empty());
    } else {
      EXPECT_EQ(r.value().weights.rank(), c["average_attn_weights"].get<bool>() ? 3 : 4);
      EXPECT_TRUE(all_close(r.value().weights.data, doubles(c["expected_weights"]), kTolerance));
    }
  }
}

TEST_P(PyTorchReference, TransformerEncoderLayer) {
  const json fixture = load("encoder_layer.json");
  ASSERT_GE(fixture["cases"].size(), 3u);
  for (const json& c : fixture["cases"]) {
    SCOPED_TRACE(c["name"].get<std::string>());
    const int b = c["batch"], s = c["seq"], e = c["d_model"], f = c["ffn_dim"];
    const json& w = c["weights"];
    const EncoderLayerWeights weights{mha_weights(w, "self_attn.", e), ffn(w, e, f), norm(w, "norm1"),
                                      norm(w, "norm2")};
    const Tensor x({"B", "S", "E"}, {b, s, e}, floats(c["input"]));
    const Tensor padding = key_padding_mask(c["lengths"].get<std::vector<int>>(), s);
    Result<Tensor> r = encoder_layer(x, weights, layer_options(c, GetParam()), &padding, c["causal"]);
    ASSERT_TRUE(r.ok()) << r.error();
    EXPECT_TRUE(all_close(r.value().data, doubles(c["expected"]), kTolerance));
  }
}

TEST_P(PyTorchReference, TransformerDecoderLayer) {
  const json fixture = load("decoder_layer.json");
  ASSERT_GE(fixture["cases"].size(), 2u);
  for (const json& c : fixture["cases"]) {
    SCOPED_TRACE(c["name"].get<std::string>());
    const int b = c["batch"], st = c["target_seq"], ss = c["source_seq"], e = c["d_model"], f = c["ffn_dim"];
    const json& w = c["weights"];
    const DecoderLayerWeights weights{mha_weights(w, "self_attn.", e),
                                      mha_weights(w, "cross_attn.", e),
                                      ffn(w, e, f),
                                      norm(w, "norm1"),
                                      norm(w, "norm2"),
                                      norm(w, "norm3")};
    const Tensor target({"B", "St", "E"}, {b, st, e}, floats(c["target"]));
    const Tensor memory({"B", "Ss", "E"}, {b, ss, e}, floats(c["memory"]));
    const Tensor target_padding = key_padding_mask(c["target_lengths"].get<std::vector<int>>(), st);
    const Tensor memory_padding = key_padding_mask(c["source_lengths"].get<std::vector<int>>(), ss);
    Result<Tensor> r =
        decoder_layer(target, memory, weights, layer_options(c, GetParam()), &target_padding, &memory_padding);
    ASSERT_TRUE(r.ok()) << r.error();
    EXPECT_TRUE(all_close(r.value().data, doubles(c["expected"]), kTolerance));
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, PyTorchReference, ::testing::Values(Backend::Reference, Backend::Fast),
                         [](const ::testing::TestParamInfo<Backend>& info) {
                           return info.param == Backend::Reference ? "Reference" : "Fast";
                         });
