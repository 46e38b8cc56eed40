// Hub checkpoints (config.json + safetensors) of GPT-2 and BERT against the PyTorch
// references in tests/reference/hf_models.py, on the tiny random models written by
// tests/reference/generate_pretrained_fixtures.py: attentions (per layer (B, H, S, S)),
// hidden states and logits agree to 1e-4 relative on the real (unpadded) positions.
// Then every way a checkpoint can be broken, each an Error naming the culprit.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "attention/pretrained.hpp"
#include "attention/safetensors.hpp"
#include "hub_fixture.hpp"

namespace attention::pretrained {
namespace {

using json = nlohmann::json;
const std::string kDir = std::string(ATTENTION_FIXTURE_DIR) + "/pretrained/";

HubConfig config_of(const std::string& dir) {
  Result<HubConfig> c = read_config(read_text(kDir + dir + "/config.json"));
  EXPECT_TRUE(c) << c.error();
  return c.value();
}

// Loads dir's config (or config_dir's) with the given files (relative to dir; with an index
// when sharded).
Result<Transformer> load(const std::string& dir, const std::vector<std::string>& files,
                         const ShardIndex* index = nullptr, const std::string& config_dir = "") {
  Result<CheckpointLoader> loader = CheckpointLoader::create(config_of(config_dir.empty() ? dir : config_dir));
  if (!loader) return loader.error_value();
  for (const std::string& f : files) {
    std::vector<std::uint8_t> bytes = read_bytes(kDir + dir + "/" + f);
    std::vector<std::string> expected;
    if (index)
      for (const auto& [name, file] : index->weight_map)
        if (file == f) expected.push_back(name);
    if (Status s = loader.value().add_file(bytes.data(), bytes.size(), f, index ? &expected : nullptr); !s)
      return s.error_value();
  }
  return loader.value().finish();
}

void check_against(const Transformer& model, const std::string& golden) {
  check_against_expected(model, kDir + golden + "/expected.json", golden);
}

// The names skipped by a loader of dir's config for dir's files, with their reasons.
std::map<std::string, std::string> skipped_of(const std::string& dir, const std::vector<std::string>& files) {
  Result<CheckpointLoader> loader = CheckpointLoader::create(config_of(dir));
  EXPECT_TRUE(loader);
  for (const std::string& f : files) {
    std::vector<std::uint8_t> bytes = read_bytes(kDir + dir + "/" + f);
    EXPECT_TRUE(loader.value().add_file(bytes.data(), bytes.size(), f));
  }
  std::map<std::string, std::string> out(loader.value().skipped().begin(), loader.value().skipped().end());
  return out;
}

TEST(Pretrained, Gpt2ConfigIsTheSpecOfThePreLnCausalModel) {
  const HubConfig c = config_of("gpt2-tiny");
  EXPECT_EQ(c.family, Family::Gpt2);
  EXPECT_EQ(c.spec.d_model, 24);
  EXPECT_EQ(c.spec.heads, 4);
  EXPECT_EQ(c.spec.ffn_dim, 96);  // n_inner null = 4 * n_embd
  EXPECT_EQ(c.spec.vocab_size, 557);
  EXPECT_EQ(c.spec.max_seq, 32);
  EXPECT_TRUE(c.spec.causal);
  EXPECT_EQ(c.spec.norm, NormPlacement::Pre);
  EXPECT_TRUE(c.spec.final_norm);
  EXPECT_EQ(c.spec.activation, Activation::GELUTanh);
  EXPECT_EQ(c.spec.head, OutputHead::Tied);
  EXPECT_EQ(c.spec.positions, Positions::Learned);
}

TEST(Pretrained, BertConfigIsTheSpecOfThePostLnEncoderWithItsMaskedLmHead) {
  const HubConfig c = config_of("bert-tiny");
  EXPECT_EQ(c.family, Family::Bert);
  EXPECT_FALSE(c.spec.causal);
  EXPECT_EQ(c.spec.norm, NormPlacement::Post);
  EXPECT_FALSE(c.spec.final_norm);
  EXPECT_TRUE(c.spec.embed_norm);
  EXPECT_EQ(c.spec.type_vocab_size, 2);
  EXPECT_EQ(c.spec.activation, Activation::GELU);
  EXPECT_DOUBLE_EQ(c.spec.layer_norm_eps, 1e-12);
  EXPECT_EQ(c.spec.head, OutputHead::Mlm);
  EXPECT_EQ(c.pad_token_id, 0);
}

TEST(Pretrained, Gpt2MatchesThePyTorchReference) {
  Result<CheckpointLoader> loader = CheckpointLoader::create(config_of("gpt2-tiny"));
  ASSERT_TRUE(loader);
  std::vector<std::uint8_t> bytes = read_bytes(kDir + "gpt2-tiny/model.safetensors");
  ASSERT_TRUE(loader.value().add_file(bytes.data(), bytes.size(), "model.safetensors"));
  // The U8 causal-mask tables and masked_bias are skipped by name, never decoded.
  EXPECT_EQ(loader.value().skipped().size(), 4u);
  Result<Transformer> model = loader.value().finish();
  ASSERT_TRUE(model) << model.error();
  check_against(model.value(), "gpt2-tiny");
}

TEST(Pretrained, Gpt2InHalfAndBfloat16MatchesItsOwnReference) {
  for (const char* dir : {"gpt2-tiny-f16", "gpt2-tiny-bf16"}) {
    Result<Transformer> model = load(dir, {"model.safetensors"});
    ASSERT_TRUE(model) << dir << ": " << model.error();
    check_against(model.value(), dir);
  }
}

TEST(Pretrained, ShardedGpt2IsTheSameModel) {
  Result<ShardIndex> index = read_shard_index(read_text(kDir + "gpt2-tiny-sharded/model.safetensors.index.json"));
  ASSERT_TRUE(index) << index.error();
  ASSERT_EQ(index.value().files.size(), 2u);
  Result<Transformer> model = load("gpt2-tiny-sharded", index.value().files, &index.value());
  ASSERT_TRUE(model) << model.error();
  check_against(model.value(), "gpt2-tiny");
}

TEST(Pretrained, LmHeadModelPrefixAndTiedCopyAreAccepted) {
  for (const char* file : {"model.safetensors", "model-with-lm-head.safetensors"}) {
    Result<Transformer> model = load("gpt2-tiny-lmhead", {file});
    ASSERT_TRUE(model) << file << ": " << model.error();
    check_against(model.value(), "gpt2-tiny");
  }
  // The stored lm_head.weight equals wte.weight: checked, then skipped as the same tensor.
  const auto skipped = skipped_of("gpt2-tiny-lmhead", {"model-with-lm-head.safetensors"});
  ASSERT_EQ(skipped.count("lm_head.weight"), 1u);
  EXPECT_NE(skipped.at("lm_head.weight").find("the same values as 'transformer.wte.weight'"), std::string::npos)
      << skipped.at("lm_head.weight");
}

// tie_word_embeddings false: the logits come from the file's own lm_head.weight, which
// differs from wte (the PyTorch reference's logits differ from gpt2-tiny's by up to ~13).
TEST(Pretrained, Gpt2WithAnUntiedLmHeadUsesIt) {
  const HubConfig c = config_of("gpt2-tiny-untied");
  EXPECT_EQ(c.spec.head, OutputHead::Linear);
  Result<Transformer> model = load("gpt2-tiny-untied", {"model.safetensors"});
  ASSERT_TRUE(model) << model.error();
  check_against(model.value(), "gpt2-tiny-untied");
}

TEST(Pretrained, BertWithAnUntiedDecoderUsesIt) {
  const HubConfig c = config_of("bert-tiny-untied");
  EXPECT_EQ(c.spec.head, OutputHead::MlmUntied);
  Result<Transformer> model = load("bert-tiny-untied", {"model.safetensors"});
  ASSERT_TRUE(model) << model.error();
  check_against(model.value(), "bert-tiny-untied");
  // decoder.bias is the head's bias under its second name (equal values), not a copy skipped blindly
  const auto skipped = skipped_of("bert-tiny-untied", {"model.safetensors"});
  EXPECT_EQ(skipped.count("cls.predictions.decoder.weight"), 0u);
  ASSERT_EQ(skipped.count("cls.predictions.decoder.bias"), 1u);
  EXPECT_NE(skipped.at("cls.predictions.decoder.bias").find("'cls.predictions.bias'"), std::string::npos);
}

// BertForMaskedLM's layout: `bert.` prefix, no pooler, both names of the decoder's bias and
// the tied decoder.weight stored: each second name is checked equal and skipped.
TEST(Pretrained, BertMaskedLmFileWithBothNamesOfItsTiedTensorsIsTheSameModel) {
  Result<Transformer> model = load("bert-tiny-mlm", {"model.safetensors"});
  ASSERT_TRUE(model) << model.error();
  check_against(model.value(), "bert-tiny");
  const auto skipped = skipped_of("bert-tiny-mlm", {"model.safetensors"});
  ASSERT_EQ(skipped.count("cls.predictions.decoder.weight"), 1u);
  EXPECT_NE(skipped.at("cls.predictions.decoder.weight").find("'bert.embeddings.word_embeddings.weight'"),
            std::string::npos);
  EXPECT_NE(skipped.at("cls.predictions.decoder.weight").find("tie_word_embeddings is true"), std::string::npos);
  EXPECT_EQ(skipped.count("cls.predictions.decoder.bias"), 1u);
}

// BertModel's layout: no prefix, the pooler, no heads: the hidden states and attentions of
// bert-tiny, and no logits.
TEST(Pretrained, BertModelFileWithoutPrefixOrHeadsIsTheEncoder) {
  const HubConfig c = config_of("bert-tiny-model");
  EXPECT_EQ(c.spec.head, OutputHead::None);
  Result<Transformer> model = load("bert-tiny-model", {"model.safetensors"});
  ASSERT_TRUE(model) << model.error();
  check_against(model.value(), "bert-tiny");
  EXPECT_EQ(skipped_of("bert-tiny-model", {"model.safetensors"}).count("pooler.dense.weight"), 1u);
  // A BertModel config with a BertForPreTraining file: its heads are skipped.
  Result<Transformer> heads = load("bert-tiny", {"model.safetensors"}, nullptr, "bert-tiny-model");
  ASSERT_TRUE(heads) << heads.error();
  check_against(heads.value(), "bert-tiny");
}

TEST(Pretrained, BertMatchesThePyTorchReference) {
  Result<Transformer> model = load("bert-tiny", {"model.safetensors"});
  ASSERT_TRUE(model) << model.error();
  check_against(model.value(), "bert-tiny");
}

TEST(Pretrained, BertWithLegacyGammaBetaNamesIsTheSameModel) {
  Result<Transformer> model = load("bert-tiny-legacy", {"model.safetensors"});
  ASSERT_TRUE(model) << model.error();
  check_against(model.value(), "bert-tiny");
}

TEST(Pretrained, LastRowLogitsAreTheLastRealRowOfTheFullLogits) {
  Result<Transformer> model = load("gpt2-tiny", {"model.safetensors"});
  ASSERT_TRUE(model);
  const json e = json::parse(read_text(kDir + "gpt2-tiny/expected.json"));
  ForwardInput in;
  in.batch = e["batch"];
  in.seq = e["seq"];
  in.ids = e["input_ids"].get<std::vector<int>>();
  in.lengths = e["lengths"].get<std::vector<int>>();
  const int v = model.value().spec().vocab_size;
  Result<ForwardOutput> all = model.value().forward(in);
  ForwardOptions last_only;
  last_only.logits = LogitRows::Last;
  Result<ForwardOutput> last = model.value().forward(in, last_only);
  ASSERT_TRUE(all && last);
  ASSERT_EQ(last.value().logits.shape, (std::vector<int>{in.batch, 1, v}));
  for (int b = 0; b < in.batch; ++b) {
    const std::size_t row = static_cast<std::size_t>(b) * in.seq + in.lengths[b] - 1;
    for (int c = 0; c < v; ++c)  // the same products, perhaps summed in another order (fewer rows)
      expect_close(&last.value().logits.data[static_cast<std::size_t>(b) * v + c],
                   all.value().logits.data[row * v + c] * 1.0, "last-row logits");
  }
  ForwardOptions none;
  none.logits = LogitRows::None;
  Result<ForwardOutput> without = model.value().forward(in, none);
  ASSERT_TRUE(without);
  EXPECT_TRUE(without.value().logits.data.empty());
  EXPECT_EQ(without.value().hidden.data, all.value().hidden.data);
}

// ---- broken checkpoints ----

// A fixture file rewritten as F32 (its U8 / I64 buffers dropped): tensors removed, renamed,
// replaced or added.
using Edit = std::function<void(std::vector<safetensors::Tensor>&)>;
std::vector<std::uint8_t> edited(const std::string& path, const Edit& edit) {
  std::vector<std::uint8_t> bytes = read_bytes(kDir + path);
  Result<safetensors::Index> index = safetensors::read_index(bytes.data(), bytes.size(), /*any_dtype=*/true);
  EXPECT_TRUE(index) << index.error();
  std::vector<safetensors::Tensor> tensors;
  for (const safetensors::TensorInfo& t : index.value().tensors) {
    if (!t.decodable) continue;
    safetensors::Tensor x{t.name, t.dtype, t.shape, std::vector<float>(t.count)};
    EXPECT_TRUE(safetensors::decode(t, bytes.data() + index.value().data_offset, x.values.data()));
    tensors.push_back(std::move(x));
  }
  edit(tensors);
  std::vector<safetensors::TensorRef> refs;
  for (const auto& t : tensors) refs.push_back({t.name, t.shape, t.values.data()});
  return safetensors::write(refs);
}
std::vector<std::uint8_t> edited_gpt2(const Edit& edit) { return edited("gpt2-tiny/model.safetensors", edit); }

// Keeps only the tensors whose names `keep` accepts.
Edit only(const std::function<bool(const std::string&)>& keep) {
  return [keep](std::vector<safetensors::Tensor>& t) {
    t.erase(std::remove_if(t.begin(), t.end(), [&](const safetensors::Tensor& x) { return !keep(x.name); }), t.end());
  };
}

Error load_error(const std::vector<std::uint8_t>& bytes, const std::string& dir = "gpt2-tiny") {
  Result<CheckpointLoader> loader = CheckpointLoader::create(config_of(dir));
  EXPECT_TRUE(loader);
  if (Status s = loader.value().add_file(bytes.data(), bytes.size(), "model.safetensors"); !s) return s.error_value();
  Result<Transformer> model = loader.value().finish();
  EXPECT_FALSE(model) << "a broken checkpoint loaded";
  return model ? Error{"loaded"} : model.error_value();
}

// Loads config_dir's config with the given files (bytes, in order).
Result<Transformer> load_bytes(const std::string& config_dir, const std::vector<std::vector<std::uint8_t>>& files) {
  Result<CheckpointLoader> loader = CheckpointLoader::create(config_of(config_dir));
  if (!loader) return loader.error_value();
  for (std::size_t i = 0; i < files.size(); ++i)
    if (Status s =
            loader.value().add_file(files[i].data(), files[i].size(), "part" + std::to_string(i) + ".safetensors");
        !s)
      return s.error_value();
  return loader.value().finish();
}

// Tying: a tied config with a file whose copy differs names both tensors; an untied config
// needs the head's own weight.
TEST(PretrainedErrors, ATiedCopyWithOtherValuesNamesBothTensors) {
  Result<Transformer> gpt2 = load("gpt2-tiny-untied", {"model.safetensors"}, nullptr, "gpt2-tiny");
  ASSERT_FALSE(gpt2);
  EXPECT_EQ(gpt2.error_value().code, error_code::kTiedMismatch);
  EXPECT_EQ(gpt2.error_value().field, "lm_head.weight");
  EXPECT_NE(gpt2.error_value().message.find("'transformer.wte.weight'"), std::string::npos) << gpt2.error();
  EXPECT_NE(gpt2.error_value().message.find("tie_word_embeddings is true"), std::string::npos) << gpt2.error();

  Result<Transformer> bert = load("bert-tiny-untied", {"model.safetensors"}, nullptr, "bert-tiny");
  ASSERT_FALSE(bert);
  EXPECT_EQ(bert.error_value().code, error_code::kTiedMismatch);
  EXPECT_EQ(bert.error_value().field, "cls.predictions.decoder.weight");
  EXPECT_NE(bert.error_value().message.find("'bert.embeddings.word_embeddings.weight'"), std::string::npos)
      << bert.error();

  // The decoder's bias under its second name with another value.
  Result<Transformer> bias = load_bytes("bert-tiny-mlm", {edited("bert-tiny-mlm/model.safetensors", [](auto& t) {
                                          for (auto& x : t)
                                            if (x.name == "cls.predictions.decoder.bias") x.values[5] += 0.5f;
                                        })});
  ASSERT_FALSE(bias);
  EXPECT_EQ(bias.error_value().code, error_code::kTiedMismatch);
  EXPECT_EQ(bias.error_value().field, "cls.predictions.decoder.bias");
  EXPECT_NE(bias.error_value().message.find("'cls.predictions.bias'"), std::string::npos) << bias.error();
  EXPECT_NE(bias.error_value().message.find("element 5"), std::string::npos) << bias.error();
}

TEST(PretrainedErrors, AnUntiedConfigNeedsTheHeadsOwnWeight) {
  Result<Transformer> gpt2 = load("gpt2-tiny", {"model.safetensors"}, nullptr, "gpt2-tiny-untied");
  ASSERT_FALSE(gpt2);
  EXPECT_EQ(gpt2.error_value().code, error_code::kMissingTensor);
  EXPECT_EQ(gpt2.error_value().field, "lm_head.weight");
  Result<Transformer> bert = load("bert-tiny", {"model.safetensors"}, nullptr, "bert-tiny-untied");
  ASSERT_FALSE(bert);
  EXPECT_EQ(bert.error_value().code, error_code::kMissingTensor);
  EXPECT_EQ(bert.error_value().field, "cls.predictions.decoder.weight");
}

// A masked-LM config with a file that has no cls.predictions.transform.* (BertModel's).
TEST(PretrainedErrors, AMaskedLmConfigNeedsTheTransform) {
  Result<Transformer> model = load("bert-tiny-model", {"model.safetensors"}, nullptr, "bert-tiny");
  ASSERT_FALSE(model);
  EXPECT_EQ(model.error_value().code, error_code::kMissingTensor);
  EXPECT_EQ(model.error_value().field, "cls.predictions.transform.dense.weight");
}

// Either name fills a tied tensor, in whichever file comes first; the other is checked
// against it when it arrives.
TEST(PretrainedErrors, TiedNamesInSeparateFilesAreCheckedEitherWay) {
  const auto with_lm_head = [](float delta) {
    return edited_gpt2([delta](auto& t) {
      for (const auto& x : t)
        if (x.name == "wte.weight") {
          t = {x};
          t[0].name = "lm_head.weight";
          t[0].values[7] += delta;
          return;
        }
    });
  };
  const auto without_wte = edited_gpt2(only([](const std::string& n) { return n != "wte.weight"; }));
  Result<Transformer> head_first = load_bytes("gpt2-tiny", {with_lm_head(0), without_wte});
  ASSERT_TRUE(head_first) << head_first.error();  // lm_head.weight alone fills wte
  check_against(head_first.value(), "gpt2-tiny");
  const auto full = edited_gpt2([](auto&) {});
  Result<Transformer> head_last = load_bytes("gpt2-tiny", {full, with_lm_head(0)});
  ASSERT_TRUE(head_last) << head_last.error();
  check_against(head_last.value(), "gpt2-tiny");

  const auto wte_only = edited_gpt2(only([](const std::string& n) { return n == "wte.weight"; }));
  Result<Transformer> differs = load_bytes("gpt2-tiny", {with_lm_head(1), without_wte, wte_only});
  ASSERT_FALSE(differs);
  EXPECT_EQ(differs.error_value().code, error_code::kTiedMismatch);
  EXPECT_EQ(differs.error_value().field, "wte.weight");
  EXPECT_NE(differs.error_value().message.find("'lm_head.weight'"), std::string::npos) << differs.error();
  EXPECT_NE(differs.error_value().message.find("element 7"), std::string::npos) << differs.error();
  // One name given twice is still a bad file.
  Result<Transformer> twice = load_bytes("gpt2-tiny", {full, wte_only});
  ASSERT_FALSE(twice);
  EXPECT_EQ(twice.error_value().code, error_code::kBadFile);
}

TEST(PretrainedErrors, AMissingTensorIsNamed) {
  Error e = load_error(edited_gpt2([](auto& t) {
    t.erase(std::find_if(t.begin(), t.end(), [](const auto& x) { return x.name == "h.1.mlp.c_fc.weight"; }));
  }));
  EXPECT_EQ(e.code, error_code::kMissingTensor);
  EXPECT_EQ(e.field, "h.1.mlp.c_fc.weight");
}

TEST(PretrainedErrors, AnUnexpectedTensorIsNamed) {
  Error e = load_error(edited_gpt2([](auto& t) {
    t.push_back({"h.0.attn.rotary.weight", safetensors::DType::F32, {2}, {1, 2}});
  }));
  EXPECT_EQ(e.code, error_code::kUnexpectedTensor);
  EXPECT_EQ(e.field, "h.0.attn.rotary.weight");
}

TEST(PretrainedErrors, AWrongShapeNamesTheTensorAndBothShapes) {
  Error e = load_error(edited_gpt2([](auto& t) {
    for (auto& x : t)
      if (x.name == "h.0.attn.c_attn.weight") x.shape = {72, 24};  // stored (out, in): a converter forgot Conv1D
  }));
  EXPECT_EQ(e.code, error_code::kShapeMismatch);
  EXPECT_EQ(e.field, "h.0.attn.c_attn.weight");
  EXPECT_NE(e.message.find("[72, 24]"), std::string::npos) << e.message;
  EXPECT_NE(e.message.find("[24, 72]"), std::string::npos) << e.message;
}

TEST(PretrainedErrors, ANonFiniteValueIsNamed) {
  Error e = load_error(edited_gpt2([](auto& t) {
    for (auto& x : t)
      if (x.name == "ln_f.bias") x.values[3] = std::nanf("");
  }));
  EXPECT_EQ(e.code, error_code::kNonFinite);
  EXPECT_EQ(e.field, "ln_f.bias");
}

TEST(PretrainedErrors, ATruncatedFileIsABadFile) {
  std::vector<std::uint8_t> bytes = read_bytes(kDir + "gpt2-tiny/model.safetensors");
  bytes.resize(bytes.size() - 100);
  Error e = load_error(bytes);
  EXPECT_EQ(e.code, error_code::kBadFile);
}

TEST(PretrainedErrors, AnotherModelsWeightsAreUnexpected) {
  std::vector<std::uint8_t> bytes = read_bytes(kDir + "bert-tiny/model.safetensors");
  Error e = load_error(bytes, "gpt2-tiny");
  EXPECT_EQ(e.code, error_code::kUnexpectedTensor);
}

TEST(PretrainedErrors, AShardThatDisagreesWithTheIndexIsNamed) {
  Result<ShardIndex> index = read_shard_index(read_text(kDir + "gpt2-tiny-sharded/model.safetensors.index.json"));
  ASSERT_TRUE(index);
  ShardIndex swapped = index.value();
  for (auto& [name, file] : swapped.weight_map) file = file == swapped.files[0] ? swapped.files[1] : swapped.files[0];
  Result<Transformer> model = load("gpt2-tiny-sharded", index.value().files, &swapped);
  ASSERT_FALSE(model);
  EXPECT_EQ(model.error_value().code, error_code::kUnexpectedTensor);
  // A shard given twice: its tensors are filled twice.
  Result<Transformer> twice = load("gpt2-tiny-sharded", {index.value().files[0], index.value().files[0]});
  ASSERT_FALSE(twice);
  EXPECT_EQ(twice.error_value().code, error_code::kBadFile);
  // One shard only: the other's tensors are missing.
  Result<Transformer> half = load("gpt2-tiny-sharded", {index.value().files[0]});
  ASSERT_FALSE(half);
  EXPECT_EQ(half.error_value().code, error_code::kMissingTensor);
}

TEST(PretrainedErrors, ShardIndexProblemsNameTheKey) {
  EXPECT_FALSE(read_shard_index("not json"));
  EXPECT_EQ(read_shard_index("{}").error_value().field, "weight_map");
  EXPECT_EQ(read_shard_index(R"({"weight_map": {"wte.weight": 3}})").error_value().field, "wte.weight");
  Result<ShardIndex> escape = read_shard_index(R"({"weight_map": {"wte.weight": "../secret.safetensors"}})");
  ASSERT_FALSE(escape);
  EXPECT_EQ(escape.error_value().field, "wte.weight");
}

TEST(PretrainedErrors, ConfigProblemsNameTheKey) {
  const json base = json::parse(read_text(kDir + "gpt2-tiny/config.json"));
  const auto error_of = [&](const std::function<void(json&)>& edit) {
    json c = base;
    edit(c);
    Result<HubConfig> r = read_config(c.dump());
    EXPECT_FALSE(r) << c.dump();
    return r ? Error{"accepted"} : r.error_value();
  };
  EXPECT_FALSE(read_config("{"));
  EXPECT_EQ(read_config("[]").error_value().code, error_code::kBadFile);
  Error e = error_of([](json& c) { c["model_type"] = "t5"; });
  EXPECT_EQ(e.field, "model_type");
  EXPECT_NE(e.message.find("t5"), std::string::npos);
  EXPECT_NE(e.message.find("\"llama\""), std::string::npos) << e.message;  // the families it loads
  e = error_of([](json& c) { c.erase("model_type"); });
  EXPECT_EQ(e.field, "model_type");
  e = error_of([](json& c) { c["n_head"] = 5; });  // 24 / 5
  EXPECT_EQ(e.field, "n_head");
  EXPECT_EQ(e.code, error_code::kNotDivisible);
  e = error_of([](json& c) { c["n_embd"] = "24"; });
  EXPECT_EQ(e.field, "n_embd");
  EXPECT_EQ(e.code, error_code::kBadFile);
  e = error_of([](json& c) { c["n_layer"] = 0; });
  EXPECT_EQ(e.field, "n_layer");
  EXPECT_EQ(e.code, error_code::kOutOfRange);
  e = error_of([](json& c) { c["activation_function"] = "quick_gelu"; });
  EXPECT_EQ(e.field, "activation_function");
  e = error_of([](json& c) { c["scale_attn_by_inverse_layer_idx"] = true; });
  EXPECT_EQ(e.field, "scale_attn_by_inverse_layer_idx");
  e = error_of([](json& c) {  // gpt2-xl-like widths over the 1 GiB parameter limit
    c["n_embd"] = 4096;
    c["n_head"] = 32;
    c["n_layer"] = 48;
  });
  EXPECT_EQ(e.code, error_code::kLimitExceeded);
  const json bert = json::parse(read_text(kDir + "bert-tiny/config.json"));
  json relative = bert;
  relative["position_embedding_type"] = "relative_key";
  Result<HubConfig> r = read_config(relative.dump());
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error_value().field, "position_embedding_type");
}

TEST(PretrainedErrors, TokenTypesOutOfRangeAreRefusedBeforeAnythingRuns) {
  Result<Transformer> model = load("bert-tiny", {"model.safetensors"});
  ASSERT_TRUE(model);
  ForwardInput in;
  in.batch = 1;
  in.seq = 3;
  in.ids = {12, 99, 13};
  in.token_types = {0, 2, 0};
  Result<ForwardOutput> out = model.value().forward(in);
  ASSERT_FALSE(out);
  EXPECT_EQ(out.error_value().field, "tokenTypes");
  EXPECT_EQ(out.error_value().code, error_code::kOutOfRange);
}

}  // namespace
}  // namespace attention::pretrained
