#pragma once
// Reading hub checkpoint fixtures (tests/reference/fixtures/pretrained/, .../hub/) and holding
// a loaded model to the PyTorch reference's expected.json: attentions (per layer (B, H, S, S)),
// hidden states and logits agree to 1e-4 relative on the real (unpadded) query positions.
// Shared by test_pretrained.cpp and test_hub_families.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "attention/pretrained.hpp"
#include "attention/transformer.hpp"

namespace attention::pretrained {

inline std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in) << "cannot read " << path;
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}
inline std::vector<std::uint8_t> read_bytes(const std::string& path) {
  const std::string t = read_text(path);
  return std::vector<std::uint8_t>(t.begin(), t.end());
}

// The checkpoint in directory `dir` (its config.json and one model.safetensors) loaded with `options`.
inline Result<Transformer> load_fixture(const std::string& dir, const LoadOptions& options) {
  Result<HubConfig> config = read_config(read_text(dir + "/config.json"));
  if (!config) return config.error_value();
  Result<CheckpointLoader> loader = CheckpointLoader::create(config.value(), options);
  if (!loader) return loader.error_value();
  const std::vector<std::uint8_t> bytes = read_bytes(dir + "/model.safetensors");
  if (Status s = loader.value().add_file(bytes.data(), bytes.size(), "model.safetensors"); !s) return s.error_value();
  return loader.value().finish();
}

inline void expect_close(const float* got, double want, const std::string& what) {
  const double tolerance = 1e-4 * std::max(1.0, std::fabs(want));
  ASSERT_NEAR(*got, want, tolerance) << what;
}

// Compares a forward pass of `model` (both backends) with the expected.json at `path`.
inline void check_against_expected(const Transformer& model, const std::string& path, const std::string& golden) {
  using json = nlohmann::json;
  const json e = json::parse(read_text(path));
  const int b = e["batch"], s = e["seq"];
  ForwardInput in;
  in.batch = b;
  in.seq = s;
  in.ids = e["input_ids"].get<std::vector<int>>();
  in.lengths = e["lengths"].get<std::vector<int>>();
  if (e.contains("token_type_ids")) in.token_types = e["token_type_ids"].get<std::vector<int>>();
  RecordFilter all;
  ForwardOptions options;
  options.record = &all;
  for (Backend backend : {Backend::Fast, Backend::Reference}) {
    options.backend = backend;
    Result<ForwardOutput> out = model.forward(in, options);
    ASSERT_TRUE(out) << out.error();
    const ModelSpec& spec = model.spec();
    const std::string stack = spec.causal ? "decoder." : "encoder.";
    const int h = spec.heads, E = spec.d_model, V = spec.vocab_size;
    const auto& lengths = in.lengths;
    // attentions[l]: (B, H, S, S), real query rows only (keys past the length are 0 in both)
    ASSERT_EQ(e["attentions"].size(), static_cast<std::size_t>(spec.layers));
    for (int l = 0; l < spec.layers; ++l) {
      const Stage* w = out.value().trace.find(l, stack + "self_attn.weights");
      ASSERT_NE(w, nullptr);
      const std::vector<double> want = e["attentions"][l].get<std::vector<double>>();
      ASSERT_EQ(w->tensor.size(), want.size());
      for (int bi = 0; bi < b; ++bi)
        for (int hi = 0; hi < h; ++hi)
          for (int q = 0; q < lengths[bi]; ++q)
            for (int k = 0; k < s; ++k) {
              const std::size_t i = ((static_cast<std::size_t>(bi) * h + hi) * s + q) * s + k;
              expect_close(&w->tensor.data[i], want[i],
                           golden + " attention layer " + std::to_string(l) + " [" + std::to_string(bi) + "," +
                               std::to_string(hi) + "," + std::to_string(q) + "," + std::to_string(k) + "]");
            }
    }
    // hidden_states: [0] the first layer's input, [l + 1] layer l's output; the last is
    // after the final norm (Hugging Face's convention), i.e. our final hidden.
    const auto rows_match = [&](const float* got, const std::vector<double>& want, int width, const std::string& what) {
      ASSERT_EQ(want.size(), static_cast<std::size_t>(b) * s * width) << what;
      for (int bi = 0; bi < b; ++bi)
        for (int p = 0; p < lengths[bi]; ++p)
          for (int c = 0; c < width; ++c) {
            const std::size_t i = (static_cast<std::size_t>(bi) * s + p) * width + c;
            expect_close(&got[i], want[i],
                         what + " [" + std::to_string(bi) + "," + std::to_string(p) + "," + std::to_string(c) + "]");
          }
    };
    const Stage* input = out.value().trace.find(-1, stack + "input");
    ASSERT_NE(input, nullptr);
    rows_match(input->tensor.ptr(), e["hidden_states"][0].get<std::vector<double>>(), E, golden + " hidden_states[0]");
    for (int l = 0; l < spec.layers; ++l) {
      const bool last = l == spec.layers - 1;
      const float* got = last && spec.final_norm ? out.value().hidden.ptr()
                                                 : out.value().trace.find(l, stack + "output")->tensor.ptr();
      rows_match(got, e["hidden_states"][l + 1].get<std::vector<double>>(), E,
                 golden + " hidden_states[" + std::to_string(l + 1) + "]");
    }
    if (spec.head == OutputHead::None) {  // hidden states only (BertModel)
      EXPECT_TRUE(out.value().logits.data.empty());
      continue;
    }
    rows_match(out.value().logits.ptr(), e["logits"].get<std::vector<double>>(), V, golden + " logits");
  }
}

}  // namespace attention::pretrained
