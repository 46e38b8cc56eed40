#pragma once
// The models the analysis tools are tested on (test_head_scores.cpp, test_logit_lens.cpp):
// the shipped checkpoints and the tiny PyTorch reference models of fixtures/heads.json.
#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "attention/pretrained.hpp"
#include "attention/safetensors.hpp"
#include "attention/weights_io.hpp"
#include "pytorch_training.hpp"

namespace attention::analysis_fixture {

using json = nlohmann::json;

inline std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in) << "cannot read " << path;
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// A shipped checkpoint (web/public/checkpoints/<id>.safetensors, its spec in the metadata).
inline Transformer load_checkpoint(const std::string& id) {
  const std::string dir = std::string(ATTENTION_FIXTURE_DIR) + "/../../../web/public/checkpoints/";
  const std::string text = read_text(dir + id + ".safetensors");
  const std::vector<std::uint8_t> bytes(text.begin(), text.end());
  Result<safetensors::Index> index = safetensors::read_index(bytes.data(), bytes.size());
  EXPECT_TRUE(index);
  Result<ModelSpec> spec = from_json(model_spec_schema(), json::parse(index.value().metadata.at("spec")));
  EXPECT_TRUE(spec) << spec.error();
  Result<Transformer> model = Transformer::create(spec.value());
  EXPECT_TRUE(model);
  EXPECT_TRUE(load_safetensors(model.value(), bytes.data(), bytes.size()));
  return model.value();
}

// A tiny reference model of fixtures/heads.json or ablation.json by its source: a checkpoint directory
// (pretrained/ GPT-2 or BERT, hub/ the modern families) or a
// modern fixture (Llama, Qwen 2 with grouped K/V heads).
inline Transformer load_reference_model(const std::string& source) {
  const std::string dir = std::string(ATTENTION_FIXTURE_DIR) + "/";
  if (source.rfind("pretrained/", 0) == 0 || source.rfind("hub/", 0) == 0) {
    Result<pretrained::HubConfig> config = pretrained::read_config(read_text(dir + source + "/config.json"));
    EXPECT_TRUE(config) << config.error();
    Result<pretrained::CheckpointLoader> loader = pretrained::CheckpointLoader::create(config.value());
    EXPECT_TRUE(loader) << loader.error();
    const std::string text = read_text(dir + source + "/model.safetensors");
    const std::vector<std::uint8_t> bytes(text.begin(), text.end());
    EXPECT_TRUE(loader.value().add_file(bytes.data(), bytes.size(), "model.safetensors"));
    Result<Transformer> model = loader.value().finish();
    EXPECT_TRUE(model) << model.error();
    return model.value();
  }
  return testing::load_fixture_model(testing::read_fixture(dir + source + ".json"), dir + source + ".safetensors");
}

inline json golden() { return json::parse(read_text(std::string(ATTENTION_FIXTURE_DIR) + "/heads.json")); }

}  // namespace attention::analysis_fixture
