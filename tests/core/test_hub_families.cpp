// Hub checkpoints of the modern families (Llama / SmolLM2 / TinyLlama, Qwen 2, Qwen 3, Gemma 3
// text and multimodal, Mistral) against tests/reference/hf_modern.py's Hugging Face models, on
// the tiny random checkpoints written by tests/reference/generate_hub_fixtures.py (F32, F16,
// BF16, tied and untied, sharded): attentions (per layer (B, H, S, S)), hidden states and logits
// agree to 1e-4 relative. Then each family's config fields and tensors, broken one at a time,
// each an Error with its code and the key or tensor it names.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>

#include "attention/pretrained.hpp"
#include "attention/safetensors.hpp"
#include "hub_fixture.hpp"

namespace attention::pretrained {
namespace {

using json = nlohmann::json;
const std::string kHub = std::string(ATTENTION_FIXTURE_DIR) + "/hub/";

json config_json(const std::string& dir) { return json::parse(read_text(kHub + dir + "/config.json")); }

HubConfig config_of(const std::string& dir) {
  Result<HubConfig> c = read_config(read_text(kHub + dir + "/config.json"));
  EXPECT_TRUE(c) << dir << ": " << c.error();
  return c ? c.value() : HubConfig{};
}

// dir's weights files (the index's shards when there is one), as (name, bytes).
std::vector<std::pair<std::string, std::vector<std::uint8_t>>> weights_of(const std::string& dir,
                                                                          ShardIndex* index_out = nullptr) {
  std::ifstream single(kHub + dir + "/model.safetensors");
  if (single) return {{"model.safetensors", read_bytes(kHub + dir + "/model.safetensors")}};
  Result<ShardIndex> index = read_shard_index(read_text(kHub + dir + "/model.safetensors.index.json"));
  EXPECT_TRUE(index) << index.error();
  if (index_out) *index_out = index.value();
  std::vector<std::pair<std::string, std::vector<std::uint8_t>>> out;
  for (const std::string& f : index.value().files) out.emplace_back(f, read_bytes(kHub + dir + "/" + f));
  return out;
}

// Loads `files` with the config text given (every file checked against the index when one is given).
Result<CheckpointLoader> loader_with(const std::string& config_text,
                                     const std::vector<std::pair<std::string, std::vector<std::uint8_t>>>& files,
                                     const ShardIndex* index = nullptr) {
  Result<HubConfig> config = read_config(config_text);
  if (!config) return config.error_value();
  Result<CheckpointLoader> loader = CheckpointLoader::create(config.value());
  if (!loader) return loader;
  for (const auto& [name, bytes] : files) {
    std::vector<std::string> expected;
    if (index)
      for (const auto& [tensor, file] : index->weight_map)
        if (file == name) expected.push_back(tensor);
    if (Status s = loader.value().add_file(bytes.data(), bytes.size(), name, index ? &expected : nullptr); !s)
      return s.error_value();
  }
  return loader;
}

Result<Transformer> load_dir(const std::string& dir) {
  ShardIndex index;
  const auto files = weights_of(dir, &index);
  Result<CheckpointLoader> loader =
      loader_with(read_text(kHub + dir + "/config.json"), files, index.files.empty() ? nullptr : &index);
  if (!loader) return loader.error_value();
  return loader.value().finish();
}

// ---- each family's config -> spec

TEST(HubFamilies, EachConfigIsTheSpecOfItsFamily) {
  {
    const HubConfig c = config_of("llama-tiny");
    EXPECT_EQ(c.family, Family::Llama);
    const ModelSpec& s = c.spec;
    EXPECT_EQ(s.positions, Positions::Rope);
    EXPECT_TRUE(s.causal);
    EXPECT_EQ(s.norm, NormPlacement::Pre);
    EXPECT_EQ(s.norm_type, NormType::RmsNorm);
    EXPECT_EQ(s.ffn, FfnKind::Gated);
    EXPECT_EQ(s.activation, Activation::SiLU);
    EXPECT_EQ(s.kv_head_count(), 2);
    EXPECT_EQ(s.head_dim(), 8);
    EXPECT_EQ(s.head, OutputHead::Linear);  // tie_word_embeddings false
    EXPECT_FALSE(s.qkv_bias || s.out_bias || s.mlp_bias || s.head_bias || s.qk_norm);
    EXPECT_DOUBLE_EQ(s.layer_norm_eps, 1e-5);
    EXPECT_EQ(s.window, 0);
    EXPECT_EQ(c.pad_token_id, -1);
  }
  {
    const ModelSpec s = config_of("smollm2-tiny-bf16").spec;
    EXPECT_EQ(s.head, OutputHead::Tied);
    EXPECT_EQ(s.kv_head_count(), 1);
    EXPECT_EQ(s.rope_scaling, RopeScaling::Llama3);
    EXPECT_DOUBLE_EQ(s.rope_factor, 8.0);
    EXPECT_EQ(s.rope_original_context, 64);
    EXPECT_DOUBLE_EQ(s.rope_theta, 100000.0);
  }
  {
    const ModelSpec s = config_of("llama-linear-bias-f16").spec;  // legacy "type", biases, no head_dim key
    EXPECT_EQ(s.rope_scaling, RopeScaling::Linear);
    EXPECT_DOUBLE_EQ(s.rope_factor, 4.0);
    EXPECT_TRUE(s.qkv_bias && s.out_bias && s.mlp_bias);
    EXPECT_EQ(s.head_dim(), 8);
  }
  {
    const ModelSpec s = config_of("qwen2-tiny").spec;
    EXPECT_TRUE(s.qkv_bias);
    EXPECT_FALSE(s.out_bias || s.mlp_bias || s.qk_norm);
    EXPECT_EQ(s.head, OutputHead::Tied);
    EXPECT_EQ(s.window, 0);  // use_sliding_window false: sliding_window is not used
  }
  {
    const ModelSpec s = config_of("qwen3-tiny-bf16").spec;
    EXPECT_TRUE(s.qk_norm);
    EXPECT_FALSE(s.qkv_bias || s.out_bias);
    EXPECT_EQ(s.head_dim(), 16);
    EXPECT_EQ(s.d_model, 48);
  }
  {
    const HubConfig c = config_of("gemma3-text-tiny");
    const ModelSpec& s = c.spec;
    EXPECT_EQ(c.family, Family::Gemma3Text);
    EXPECT_EQ(s.norm, NormPlacement::Sandwich);
    EXPECT_EQ(s.norm_type, NormType::RmsNormOffset);
    EXPECT_EQ(s.activation, Activation::GELUTanh);
    EXPECT_TRUE(s.embed_scale && s.qk_norm);
    EXPECT_DOUBLE_EQ(s.query_pre_attn_scalar, 24.0);
    EXPECT_EQ(s.window, 3);
    EXPECT_EQ(s.window_pattern, 2);
    EXPECT_TRUE(s.local_layer(0) && !s.local_layer(1) && s.local_layer(2));
    EXPECT_DOUBLE_EQ(s.rope_local_theta, 10000.0);
    EXPECT_EQ(s.rope_scaling, RopeScaling::Linear);  // on the full layers only
    EXPECT_EQ(c.pad_token_id, 0);
  }
  {
    const HubConfig c = config_of("gemma3-mm-tiny-bf16");  // text_config with Gemma3TextConfig's defaults
    EXPECT_EQ(c.family, Family::Gemma3);
    EXPECT_EQ(c.spec.head, OutputHead::Tied);
    EXPECT_DOUBLE_EQ(c.spec.rope_theta, 1e6);
    EXPECT_EQ(c.spec.window, 4);
    EXPECT_EQ(c.spec.window_pattern, 0);  // sliding_window_pattern 6 > 2 layers: both slide
    EXPECT_EQ(c.spec.max_seq, 8192);      // max_position_embeddings 131072, capped at the engine's limit
  }
  {
    const ModelSpec s = config_of("gemma3-bidirectional-tiny").spec;  // sliding_window 5, stored as 5 // 2 + 1
    EXPECT_FALSE(s.causal);
    EXPECT_EQ(s.window, 3);
    EXPECT_EQ(s.window_pattern, 2);
  }
  {
    const ModelSpec s = config_of("mistral-tiny").spec;
    EXPECT_EQ(s.window, 3);
    EXPECT_EQ(s.window_pattern, 0);
    EXPECT_DOUBLE_EQ(s.rope_local_theta, 0.0);
  }
}

// ---- against the reference

struct Golden {
  const char* dir;
  const char* expected;  // the dir whose expected.json holds the reference
};
class HubFamilyMatches : public ::testing::TestWithParam<Golden> {};

TEST_P(HubFamilyMatches, AttentionsHiddenStatesAndLogits) {
  Result<Transformer> model = load_dir(GetParam().dir);
  ASSERT_TRUE(model) << GetParam().dir << ": " << model.error();
  check_against_expected(model.value(), kHub + GetParam().expected + "/expected.json", GetParam().dir);
}

INSTANTIATE_TEST_SUITE_P(
    Fixtures, HubFamilyMatches,
    ::testing::Values(Golden{"llama-tiny", "llama-tiny"}, Golden{"llama-tiny-sharded", "llama-tiny"},
                      Golden{"smollm2-tiny-bf16", "smollm2-tiny-bf16"},
                      Golden{"llama-linear-bias-f16", "llama-linear-bias-f16"}, Golden{"qwen2-tiny", "qwen2-tiny"},
                      Golden{"qwen3-tiny-bf16", "qwen3-tiny-bf16"}, Golden{"gemma3-text-tiny", "gemma3-text-tiny"},
                      Golden{"gemma3-mm-tiny-bf16", "gemma3-mm-tiny-bf16"}, Golden{"mistral-tiny", "mistral-tiny"},
                      Golden{"gemma3-bidirectional-tiny", "gemma3-bidirectional-tiny"}),
    [](const auto& info) {
      std::string n = info.param.dir;
      std::replace(n.begin(), n.end(), '-', '_');
      return n;
    });

// ---- edited files

using Edit = std::function<void(std::vector<safetensors::Tensor>&)>;

// dir's single weights file decoded to F32, edited, written again.
std::vector<std::uint8_t> edited(const std::string& dir, const Edit& edit) {
  std::vector<std::uint8_t> bytes = read_bytes(kHub + dir + "/model.safetensors");
  Result<safetensors::Index> index = safetensors::read_index(bytes.data(), bytes.size(), /*any_dtype=*/true);
  EXPECT_TRUE(index) << index.error();
  std::vector<safetensors::Tensor> tensors;
  for (const safetensors::TensorInfo& t : index.value().tensors) {
    safetensors::Tensor x{t.name, t.dtype, t.shape, std::vector<float>(t.count)};
    EXPECT_TRUE(safetensors::decode(t, bytes.data() + index.value().data_offset, x.values.data()));
    tensors.push_back(std::move(x));
  }
  edit(tensors);
  std::vector<safetensors::TensorRef> refs;
  for (const auto& t : tensors) refs.push_back({t.name, t.shape, t.values.data()});
  return safetensors::write(refs);
}

safetensors::Tensor* find(std::vector<safetensors::Tensor>& t, const std::string& name) {
  for (auto& x : t)
    if (x.name == name) return &x;
  ADD_FAILURE() << "no tensor " << name;
  return &t.front();
}

Edit drop(const std::string& name) {
  return [name](auto& t) {
    t.erase(std::remove_if(t.begin(), t.end(), [&](const auto& x) { return x.name == name; }), t.end());
  };
}

// The error of loading `bytes` with dir's config (or the given config text).
Error tensor_error(const std::string& dir, const std::vector<std::uint8_t>& bytes, const std::string& config = "") {
  Result<CheckpointLoader> loader =
      loader_with(config.empty() ? read_text(kHub + dir + "/config.json") : config, {{"model.safetensors", bytes}});
  if (!loader) return loader.error_value();
  Result<Transformer> model = loader.value().finish();
  EXPECT_FALSE(model) << dir << ": a broken checkpoint loaded";
  return model ? Error{"loaded"} : model.error_value();
}

struct TensorCase {
  const char* what;
  const char* dir;
  Edit edit;
  const char* code;
  const char* field;
};

TEST(HubFamilyErrors, BrokenTensorsAreNamed) {
  const std::vector<TensorCase> cases = {
      {"a missing q_proj", "llama-tiny", drop("model.layers.1.self_attn.q_proj.weight"), error_code::kMissingTensor,
       "model.layers.1.self_attn.q_proj.weight"},
      {"Qwen 2's q/k/v always have biases", "qwen2-tiny", drop("model.layers.0.self_attn.k_proj.bias"),
       error_code::kMissingTensor, "model.layers.0.self_attn.k_proj.bias"},
      {"Qwen 3's k_norm", "qwen3-tiny-bf16", drop("model.layers.2.self_attn.k_norm.weight"), error_code::kMissingTensor,
       "model.layers.2.self_attn.k_norm.weight"},
      {"Gemma 3's sandwich norm", "gemma3-text-tiny", drop("model.layers.1.pre_feedforward_layernorm.weight"),
       error_code::kMissingTensor, "model.layers.1.pre_feedforward_layernorm.weight"},
      {"an untied config needs lm_head", "llama-tiny", drop("lm_head.weight"), error_code::kMissingTensor,
       "lm_head.weight"},
      {"k_proj with the query heads' rows (no GQA)", "qwen2-tiny",
       [](auto& t) {
         auto* k = find(t, "model.layers.0.self_attn.k_proj.weight");
         k->shape = {32, 32};
         k->values.resize(32 * 32, 0.1f);
       },
       error_code::kShapeMismatch, "model.layers.0.self_attn.k_proj.weight"},
      {"gate_proj transposed", "mistral-tiny",
       [](auto& t) {
         auto* g = find(t, "model.layers.0.mlp.gate_proj.weight");
         g->shape = {g->shape[1], g->shape[0]};
       },
       error_code::kShapeMismatch, "model.layers.0.mlp.gate_proj.weight"},
      {"an unknown tensor", "llama-tiny",
       [](auto& t) {
         t.push_back({"model.layers.0.self_attn.rotary.weight", safetensors::DType::F32, {2}, {1, 2}});
       },
       error_code::kUnexpectedTensor, "model.layers.0.self_attn.rotary.weight"},
      {"biases a config without attention_bias does not have", "llama-tiny",
       [](auto& t) {
         t.push_back(
             {"model.layers.0.self_attn.o_proj.bias", safetensors::DType::F32, {32}, std::vector<float>(32, 0.0f)});
       },
       error_code::kUnexpectedTensor, "model.layers.0.self_attn.o_proj.bias"},
      {"a tied lm_head with other values", "smollm2-tiny-bf16",
       [](auto& t) {
         safetensors::Tensor head = *find(t, "model.embed_tokens.weight");
         head.name = "lm_head.weight";
         head.values[11] += 0.5f;
         t.push_back(head);
       },
       error_code::kTiedMismatch, "lm_head.weight"},
      {"a non-finite weight", "gemma3-text-tiny",
       [](auto& t) { find(t, "model.norm.weight")->values[2] = std::nanf(""); }, error_code::kNonFinite,
       "model.norm.weight"},
  };
  for (const TensorCase& c : cases) {
    auto bytes = edited(c.dir, c.edit);
    Error e = tensor_error(c.dir, bytes);
    EXPECT_EQ(e.code, std::string(c.code)) << c.what << ": " << e.message;
    EXPECT_EQ(e.field, c.field) << c.what << ": " << e.message;
  }
}

// A tensor stored as I32: refused by name before anything is decoded.
TEST(HubFamilyErrors, AnIntegerTensorIsAnUnsupportedDtype) {
  const std::string header = R"({"model.norm.weight":{"dtype":"I32","shape":[32],"data_offsets":[0,128]}})";
  std::vector<std::uint8_t> bytes(8 + header.size() + 128, 0);
  const std::uint64_t n = header.size();
  for (int i = 0; i < 8; ++i) bytes[static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(n >> (8 * i));
  std::memcpy(bytes.data() + 8, header.data(), header.size());
  Error e = tensor_error("llama-tiny", bytes);
  EXPECT_EQ(e.code, error_code::kUnsupportedDtype) << e.message;
  EXPECT_EQ(e.field, "model.norm.weight");
}

TEST(HubFamilyErrors, ATiedCopyWithTheSameValuesAndOldRotaryBuffersAreSkippedByName) {
  const auto bytes = edited("smollm2-tiny-bf16", [](auto& t) {
    safetensors::Tensor head = *find(t, "model.embed_tokens.weight");
    head.name = "lm_head.weight";
    t.push_back(head);
    t.push_back(
        {"model.layers.0.self_attn.rotary_emb.inv_freq", safetensors::DType::F32, {8}, std::vector<float>(8, 1)});
  });
  Result<CheckpointLoader> loader =
      loader_with(read_text(kHub + "smollm2-tiny-bf16/config.json"), {{"model.safetensors", bytes}});
  ASSERT_TRUE(loader) << loader.error();
  std::map<std::string, std::string> skipped(loader.value().skipped().begin(), loader.value().skipped().end());
  ASSERT_EQ(skipped.count("lm_head.weight"), 1u);
  EXPECT_NE(skipped["lm_head.weight"].find("'model.embed_tokens.weight'"), std::string::npos);
  EXPECT_EQ(skipped.count("model.layers.0.self_attn.rotary_emb.inv_freq"), 1u);
  Result<Transformer> model = loader.value().finish();
  ASSERT_TRUE(model) << model.error();
  check_against_expected(model.value(), kHub + "smollm2-tiny-bf16/expected.json", "smollm2 with lm_head");
}

// The multimodal Gemma 3: the vision tower and projector are skipped by name; the layout of
// transformers >= 4.52 (model.language_model., lm_head.weight stored) is the same model.
TEST(HubFamilies, MultimodalGemma3ReadsItsLanguageModelInEitherLayout) {
  Result<CheckpointLoader> loader =
      loader_with(read_text(kHub + "gemma3-mm-tiny-bf16/config.json"), weights_of("gemma3-mm-tiny-bf16"));
  ASSERT_TRUE(loader) << loader.error();
  std::map<std::string, std::string> skipped(loader.value().skipped().begin(), loader.value().skipped().end());
  EXPECT_EQ(skipped.size(), 5u);
  ASSERT_EQ(skipped.count("vision_tower.vision_model.embeddings.patch_embedding.weight"), 1u);
  EXPECT_NE(skipped["vision_tower.vision_model.embeddings.patch_embedding.weight"].find("vision tower"),
            std::string::npos);
  EXPECT_EQ(skipped.count("multi_modal_projector.mm_input_projection_weight"), 1u);

  const auto newer = edited("gemma3-mm-tiny-bf16", [](auto& t) {
    for (auto& x : t) {
      const std::string old = "language_model.model.", vision = "vision_tower.", projector = "multi_modal_projector.";
      if (x.name.rfind(old, 0) == 0) x.name = "model.language_model." + x.name.substr(old.size());
      if (x.name.rfind(vision, 0) == 0 || x.name.rfind(projector, 0) == 0) x.name = "model." + x.name;
    }
    safetensors::Tensor head = *find(t, "model.language_model.embed_tokens.weight");
    head.name = "lm_head.weight";
    t.push_back(head);
  });
  Result<CheckpointLoader> again =
      loader_with(read_text(kHub + "gemma3-mm-tiny-bf16/config.json"), {{"model.safetensors", newer}});
  ASSERT_TRUE(again) << again.error();
  EXPECT_EQ(again.value().skipped().size(), 6u);  // 5 vision / projector tensors and the tied lm_head
  Result<Transformer> model = again.value().finish();
  ASSERT_TRUE(model) << model.error();
  check_against_expected(model.value(), kHub + "gemma3-mm-tiny-bf16/expected.json", "gemma3 (4.52 layout)");
}

// ---- config.json fields

struct ConfigCase {
  const char* what;
  const char* dir;
  std::function<void(json&)> edit;
  const char* code;
  const char* field;
};

TEST(HubFamilyErrors, ConfigFieldsNameTheKey) {
  using namespace error_code;
  const std::vector<ConfigCase> cases = {
      {"an unknown rope_scaling type", "llama-tiny",
       [](json& c) {
         c["rope_scaling"] = {{"rope_type", "yarn"}, {"factor", 4.0}};
       },
       kInvalidArgument, "rope_scaling.rope_type"},
      {"the legacy type key", "llama-tiny",
       [](json& c) {
         c["rope_scaling"] = {{"type", "dynamic"}, {"factor", 2.0}};
       },
       kInvalidArgument, "rope_scaling.type"},
      {"llama3 without low_freq_factor", "smollm2-tiny-bf16",
       [](json& c) { c["rope_scaling"].erase("low_freq_factor"); }, kInvalidArgument, "rope_scaling.low_freq_factor"},
      {"a field linear does not use", "llama-linear-bias-f16", [](json& c) { c["rope_scaling"]["beta_fast"] = 32; },
       kInvalidArgument, "rope_scaling.beta_fast"},
      {"llama3 factors in the wrong order", "smollm2-tiny-bf16",
       [](json& c) { c["rope_scaling"]["low_freq_factor"] = 8.0; }, kInvalidArgument, "rope_scaling.high_freq_factor"},
      {"kv heads not dividing heads", "llama-tiny", [](json& c) { c["num_key_value_heads"] = 3; }, kNotDivisible,
       "num_key_value_heads"},
      {"an odd head_dim (RoPE turns pairs)", "llama-tiny", [](json& c) { c["head_dim"] = 7; }, kInvalidArgument,
       "head_dim"},
      {"heads not dividing hidden_size without head_dim", "llama-linear-bias-f16",
       [](json& c) { c["num_attention_heads"] = 5; }, kNotDivisible, "num_attention_heads"},
      {"an activation the engine lacks", "llama-tiny", [](json& c) { c["hidden_act"] = "quick_gelu"; },
       kInvalidArgument, "hidden_act"},
      {"Gemma's activation key", "gemma3-text-tiny", [](json& c) { c["hidden_activation"] = "quick_gelu"; },
       kInvalidArgument, "hidden_activation"},
      {"another head class", "llama-tiny", [](json& c) { c["architectures"] = {"LlamaForSequenceClassification"}; },
       kInvalidArgument, "architectures"},
      {"partial rotary", "llama-tiny", [](json& c) { c["partial_rotary_factor"] = 0.5; }, kInvalidArgument,
       "partial_rotary_factor"},
      {"a wrong type", "qwen2-tiny", [](json& c) { c["rms_norm_eps"] = "1e-6"; }, kBadFile, "rms_norm_eps"},
      {"a vocabulary over the limit", "qwen3-tiny-bf16", [](json& c) { c["vocab_size"] = 300000; }, kOutOfRange,
       "vocab_size"},
      {"final logit softcapping", "gemma3-text-tiny", [](json& c) { c["final_logit_softcapping"] = 30.0; },
       kInvalidArgument, "final_logit_softcapping"},
      {"attention softcapping", "gemma3-text-tiny", [](json& c) { c["attn_logit_softcapping"] = 50.0; },
       kInvalidArgument, "attn_logit_softcapping"},
      {"layer_types of the wrong length", "gemma3-text-tiny",
       [](json& c) {
         c["layer_types"] = {"sliding_attention", "full_attention"};
       },
       kBadFile, "layer_types"},
      {"an unknown layer type", "gemma3-text-tiny",
       [](json& c) {
         c["layer_types"] = {"sliding_attention", "chunked_attention", "full_attention"};
       },
       kInvalidArgument, "layer_types"},
      {"layer types no windowPattern expresses", "gemma3-text-tiny",
       [](json& c) {
         c["layer_types"] = {"full_attention", "sliding_attention", "sliding_attention"};
       },
       kInvalidArgument, "layer_types"},
      {"sliding layers without a window", "gemma3-text-tiny", [](json& c) { c["sliding_window"] = nullptr; },
       kInvalidArgument, "sliding_window"},
      {"query_pre_attn_scalar 0", "gemma3-text-tiny", [](json& c) { c["query_pre_attn_scalar"] = 0; }, kOutOfRange,
       "query_pre_attn_scalar"},
      {"a sliding-window pattern of 0", "gemma3-text-tiny", [](json& c) { c["sliding_window_pattern"] = 0; },
       kOutOfRange, "sliding_window_pattern"},
      {"Qwen's window below max_window_layers full", "qwen2-tiny",
       [](json& c) {
         c["use_sliding_window"] = true;
         c["max_window_layers"] = 1;
       },
       kInvalidArgument, "max_window_layers"},
      {"Qwen's sliding layers with window 0", "qwen3-tiny-bf16",
       [](json& c) {
         c["use_sliding_window"] = true;
         c["max_window_layers"] = 0;
         c["sliding_window"] = 0;
       },
       kInvalidArgument, "sliding_window"},
      {"a rope_parameters scaling of the sliding layers", "gemma3-text-tiny",
       [](json& c) {
         c["rope_parameters"] = {
             {"sliding_attention", {{"rope_type", "linear"}, {"factor", 2.0}, {"rope_theta", 1e4}}}};
       },
       kInvalidArgument, "rope_parameters.sliding_attention.rope_type"},
      {"the multimodal text_config's rope_scaling", "gemma3-mm-tiny-bf16",
       [](json& c) {
         c["text_config"]["rope_scaling"] = {{"rope_type", "longrope"}};
       },
       kInvalidArgument, "text_config.rope_scaling.rope_type"},
      {"the multimodal text_config's kv heads", "gemma3-mm-tiny-bf16",
       [](json& c) { c["text_config"]["num_key_value_heads"] = 3; }, kNotDivisible, "text_config.num_key_value_heads"},
      {"a text_config that is not an object", "gemma3-mm-tiny-bf16", [](json& c) { c["text_config"] = 3; }, kBadFile,
       "text_config"},
      {"a text_config of another model", "gemma3-mm-tiny-bf16",
       [](json& c) { c["text_config"]["model_type"] = "llama"; }, kInvalidArgument, "text_config.model_type"},
  };
  for (const ConfigCase& c : cases) {
    json j = config_json(c.dir);
    c.edit(j);
    Result<HubConfig> r = read_config(j.dump());
    ASSERT_FALSE(r) << c.what << ": accepted";
    EXPECT_EQ(r.error_value().code, std::string(c.code)) << c.what << ": " << r.error();
    EXPECT_EQ(r.error_value().field, c.field) << c.what << ": " << r.error();
  }
}

// Values the classes accept and the engine computes as they do.
TEST(HubFamilies, ConfigValuesTheClassesDeriveAreReadAsTheyDo) {
  json qwen = config_json("qwen2-tiny");
  qwen["use_sliding_window"] = true;
  qwen["max_window_layers"] = 0;  // every layer slides
  Result<HubConfig> all = read_config(qwen.dump());
  ASSERT_TRUE(all) << all.error();
  EXPECT_EQ(all.value().spec.window, 64);
  EXPECT_EQ(all.value().spec.window_pattern, 0);

  qwen["sliding_window"] = nullptr;  // the class's layer_types: no window, no sliding layer
  Result<HubConfig> none = read_config(qwen.dump());
  ASSERT_TRUE(none) << none.error();
  EXPECT_EQ(none.value().spec.window, 0);

  json gemma = config_json("gemma3-text-tiny");
  gemma["use_bidirectional_attention"] = true;  // the class stores sliding_window // 2 + 1
  gemma["sliding_window"] = 9;
  Result<HubConfig> encoder = read_config(gemma.dump());
  ASSERT_TRUE(encoder) << encoder.error();
  EXPECT_FALSE(encoder.value().spec.causal);
  EXPECT_EQ(encoder.value().spec.window, 5);

  json v5 = config_json("llama-tiny");  // transformers 5 writes rope_parameters
  v5.erase("rope_theta");
  v5.erase("rope_scaling");
  v5["rope_parameters"] = {{"rope_type", "linear"}, {"factor", 2.0}, {"rope_theta", 5000.0}};
  Result<HubConfig> params = read_config(v5.dump());
  ASSERT_TRUE(params) << params.error();
  EXPECT_DOUBLE_EQ(params.value().spec.rope_theta, 5000.0);
  EXPECT_EQ(params.value().spec.rope_scaling, RopeScaling::Linear);

  json layers = config_json("gemma3-text-tiny");  // layer_types decides over sliding_window_pattern
  layers["layer_types"] = {"sliding_attention", "sliding_attention", "full_attention"};
  Result<HubConfig> third = read_config(layers.dump());
  ASSERT_TRUE(third) << third.error();
  EXPECT_EQ(third.value().spec.window_pattern, 3);
}

// The configurations of the small models people run in browsers, as their config.json files
// on the hub have them (transcribed): each reads into the spec its modelling code computes.
// Those over the engine's parameter limit (1 GiB of float32) are read again with 2 layers and
// a 32000-token vocabulary.
TEST(HubFamilies, TheConfigsOfTodaysSmallModelsRead) {
  const char* smollm2 = R"({"architectures": ["LlamaForCausalLM"], "attention_bias": false,
    "attention_dropout": 0.0, "bos_token_id": 0, "eos_token_id": 0, "hidden_act": "silu", "hidden_size": 576,
    "initializer_range": 0.041666666666666664, "intermediate_size": 1536, "is_llama_config": true,
    "max_position_embeddings": 8192, "model_type": "llama", "num_attention_heads": 9, "num_hidden_layers": 30,
    "num_key_value_heads": 3, "pretraining_tp": 1, "rms_norm_eps": 1e-05, "rope_interleaved": false,
    "rope_scaling": null, "rope_theta": 100000, "tie_word_embeddings": true, "torch_dtype": "bfloat16",
    "transformers_version": "4.40.1", "use_cache": true, "vocab_size": 49152})";
  Result<HubConfig> s = read_config(smollm2);
  ASSERT_TRUE(s) << s.error();
  EXPECT_EQ(s.value().spec.head_dim(), 64);
  EXPECT_EQ(s.value().spec.kv_head_count(), 3);
  EXPECT_EQ(s.value().spec.layers, 30);
  EXPECT_EQ(s.value().spec.head, OutputHead::Tied);
  EXPECT_DOUBLE_EQ(s.value().spec.rope_theta, 100000.0);

  std::string layer_types = "[";
  for (int i = 0; i < 18; ++i)
    layer_types += std::string(i ? ", " : "") + ((i + 1) % 6 ? "\"sliding_attention\"" : "\"full_attention\"");
  const std::string gemma_270m = R"({"_sliding_window_pattern": 6, "architectures": ["Gemma3ForCausalLM"],
    "attention_bias": false, "attention_dropout": 0.0, "attn_logit_softcapping": null, "bos_token_id": 2,
    "eos_token_id": 1, "final_logit_softcapping": null, "head_dim": 256, "hidden_activation": "gelu_pytorch_tanh",
    "hidden_size": 640, "initializer_range": 0.02, "intermediate_size": 2048, "layer_types": )" +
                                 layer_types + R"(],
    "max_position_embeddings": 32768, "model_type": "gemma3_text", "num_attention_heads": 4, "num_hidden_layers": 18,
    "num_key_value_heads": 1, "pad_token_id": 0, "query_pre_attn_scalar": 256, "rms_norm_eps": 1e-06,
    "rope_local_base_freq": 10000.0, "rope_scaling": null, "rope_theta": 1000000.0, "sliding_window": 512,
    "torch_dtype": "bfloat16", "transformers_version": "4.55.0.dev0", "use_bidirectional_attention": false,
    "use_cache": true, "vocab_size": 262144})";
  Result<HubConfig> g = read_config(gemma_270m);
  ASSERT_TRUE(g) << g.error();
  EXPECT_EQ(g.value().spec.window, 512);
  EXPECT_EQ(g.value().spec.window_pattern, 6);
  EXPECT_EQ(g.value().spec.head_dim(), 256);
  EXPECT_EQ(g.value().spec.kv_head_count(), 1);
  EXPECT_DOUBLE_EQ(g.value().spec.query_pre_attn_scalar, 256.0);
  EXPECT_EQ(g.value().spec.max_seq, 8192);

  const std::string qwen3_06b = R"({"architectures": ["Qwen3ForCausalLM"], "attention_bias": false,
    "attention_dropout": 0.0, "bos_token_id": 151643, "eos_token_id": 151645, "head_dim": 128, "hidden_act": "silu",
    "hidden_size": 1024, "initializer_range": 0.02, "intermediate_size": 3072, "max_position_embeddings": 40960,
    "max_window_layers": 28, "model_type": "qwen3", "num_attention_heads": 16, "num_hidden_layers": 28,
    "num_key_value_heads": 8, "rms_norm_eps": 1e-06, "rope_scaling": null, "rope_theta": 1000000,
    "sliding_window": null, "tie_word_embeddings": true, "torch_dtype": "bfloat16",
    "transformers_version": "4.51.0", "use_cache": true, "use_sliding_window": false, "vocab_size": 151936})";
  const std::string llama_32_1b = R"({"architectures": ["LlamaForCausalLM"], "attention_bias": false,
    "attention_dropout": 0.0, "bos_token_id": 128000, "eos_token_id": 128001, "head_dim": 64, "hidden_act": "silu",
    "hidden_size": 2048, "initializer_range": 0.02, "intermediate_size": 8192, "max_position_embeddings": 131072,
    "mlp_bias": false, "model_type": "llama", "num_attention_heads": 32, "num_hidden_layers": 16,
    "num_key_value_heads": 8, "pretraining_tp": 1, "rms_norm_eps": 1e-05,
    "rope_scaling": {"factor": 32.0, "high_freq_factor": 4.0, "low_freq_factor": 1.0,
                     "original_max_position_embeddings": 8192, "rope_type": "llama3"},
    "rope_theta": 500000.0, "tie_word_embeddings": true, "torch_dtype": "bfloat16",
    "transformers_version": "4.45.0.dev0", "use_cache": true, "vocab_size": 128256})";
  for (const std::string& text : {qwen3_06b, llama_32_1b}) {
    Result<HubConfig> full = read_config(text);
    if (!full) {  // the whole model is over the parameter limit of float32 weights
      EXPECT_EQ(full.error_value().code, error_code::kLimitExceeded) << full.error();
      EXPECT_EQ(full.error_value().field, "hidden_size");
    }
    json two = json::parse(text);
    two["num_hidden_layers"] = 2;
    two["vocab_size"] = 32000;
    Result<HubConfig> c = read_config(two.dump());
    ASSERT_TRUE(c) << c.error();
    EXPECT_EQ(c.value().spec.head, OutputHead::Tied);
    EXPECT_EQ(c.value().spec.kv_head_count(), 8);
    EXPECT_EQ(c.value().spec.window, 0);
  }
  json qwen = json::parse(qwen3_06b);
  qwen["num_hidden_layers"] = 2;
  qwen["vocab_size"] = 32000;
  EXPECT_EQ(read_config(qwen.dump()).value().spec.head_dim(), 128);
  EXPECT_TRUE(read_config(qwen.dump()).value().spec.qk_norm);
  json llama = json::parse(llama_32_1b);
  llama["num_hidden_layers"] = 2;
  llama["vocab_size"] = 32000;
  const ModelSpec l = read_config(llama.dump()).value().spec;
  EXPECT_EQ(l.rope_scaling, RopeScaling::Llama3);
  EXPECT_DOUBLE_EQ(l.rope_factor, 32.0);
  EXPECT_EQ(l.rope_original_context, 8192);
  EXPECT_DOUBLE_EQ(l.rope_theta, 500000.0);
}

}  // namespace
}  // namespace attention::pretrained
