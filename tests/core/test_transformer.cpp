// The named-parameter Transformer against PyTorch 1.13 (tests/reference/models.py,
// fixtures by generate_model_fixtures.py): names and shapes are the state_dict's, the
// weights load from PyTorch-written safetensors, and hidden states and logits match
// (1e-5 relative to max(1, |expected|)), for both backends. Also: strict, all-or-nothing
// loading, saving, and packed weights that follow every write.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>

#include "attention/safetensors.hpp"
#include "attention/transformer.hpp"
#include "attention/weights_io.hpp"
#include "test_util.hpp"

using namespace attention;
using attention::testing::all_close;
using json = nlohmann::json;

namespace {

const std::string kDir = std::string(ATTENTION_FIXTURE_DIR) + "/models/";

std::vector<std::uint8_t> read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.good()) << "missing fixture " << path;
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

json fixture(const std::string& name) {
  std::ifstream in(kDir + name + ".json");
  EXPECT_TRUE(in.good()) << "missing fixture " << name;
  return json::parse(in);
}

Transformer model_for(const json& f) {
  Result<ModelSpec> spec = from_json(model_spec_schema(), f["spec"]);
  EXPECT_TRUE(spec.ok()) << spec.error();
  Result<Transformer> model = Transformer::create(spec.value());
  EXPECT_TRUE(model.ok()) << model.error();
  return std::move(model.value());
}

ForwardInput input_for(const json& f) {
  ForwardInput in;
  in.batch = f["batch"];
  in.seq = f["seq"];
  in.ids = f["ids"].get<std::vector<int>>();
  in.lengths = f["lengths"].get<std::vector<int>>();
  if (f.contains("source_ids")) {
    in.source_seq = f["source_seq"];
    in.source_ids = f["source_ids"].get<std::vector<int>>();
    in.source_lengths = f["source_lengths"].get<std::vector<int>>();
  }
  return in;
}

const char* kCases[] = {"post_relu_sinusoidal", "pre_gelu_learned_causal_tied", "post_gelutanh_nopos_causal",
                        "pre_relu_learned_eps", "encdec_post_sinusoidal",       "encdec_pre_gelu_learned"};

class PyTorchModel : public ::testing::TestWithParam<std::tuple<const char*, Backend>> {};

}  // namespace

TEST_P(PyTorchModel, NamesShapesHiddenStatesAndLogitsMatch) {
  const char* name = std::get<0>(GetParam());
  const Backend backend = std::get<1>(GetParam());
  const json f = fixture(name);
  Transformer model = model_for(f);

  std::vector<json> ours;
  model.visit_parameters([&](const Parameter& p) { ours.push_back({{"name", p.name()}, {"shape", p.shape()}}); });
  EXPECT_EQ(json(ours), f["parameters"]) << "parameter names, shapes and order must be the state_dict's";

  const std::vector<std::uint8_t> bytes = read_bytes(kDir + name + ".safetensors");
  const Status loaded = load_safetensors(model, bytes.data(), bytes.size());
  ASSERT_TRUE(loaded.ok()) << loaded.error();

  ForwardOptions options;
  options.backend = backend;
  Result<ForwardOutput> out = model.forward(input_for(f), options);
  ASSERT_TRUE(out.ok()) << out.error();
  const int e = f["spec"]["dModel"];
  EXPECT_EQ(out.value().hidden.shape, (std::vector<int>{f["batch"], f["seq"], e}));
  EXPECT_TRUE(all_close(out.value().hidden.data, f["hidden"].get<std::vector<double>>(), 1e-5)) << name;
  if (f["logits"].is_null()) {
    EXPECT_TRUE(out.value().logits.data.empty());
  } else {
    EXPECT_TRUE(all_close(out.value().logits.data, f["logits"].get<std::vector<double>>(), 1e-5)) << name;
  }
}

INSTANTIATE_TEST_SUITE_P(Fixtures, PyTorchModel,
                         ::testing::Combine(::testing::ValuesIn(kCases),
                                            ::testing::Values(Backend::Reference, Backend::Fast)));

TEST(Transformer, RecordedStagesFollowTheFilterAndLayerOutputsMatchPyTorch) {
  const json f = fixture("post_relu_sinusoidal");
  Transformer model = model_for(f);
  const std::vector<std::uint8_t> bytes = read_bytes(kDir + "post_relu_sinusoidal.safetensors");
  ASSERT_TRUE(load_safetensors(model, bytes.data(), bytes.size()).ok());
  RecordFilter filter;
  filter.patterns = {"*.self_attn.weights", "encoder.output"};
  filter.layers = {1};
  ForwardOptions options;
  options.record = &filter;
  Result<ForwardOutput> out = model.forward(input_for(f), options);
  ASSERT_TRUE(out.ok()) << out.error();
  const Trace& t = out.value().trace;
  ASSERT_EQ(t.stages.size(), 2u);
  EXPECT_EQ(t.stages[0].name, "encoder.self_attn.weights");
  EXPECT_EQ(t.stages[0].layer, 1);
  EXPECT_EQ(t.stages[0].tensor.shape, (std::vector<int>{3, 3, 6, 6}));
  EXPECT_EQ(t.stages[1].name, "encoder.output");
  EXPECT_TRUE(all_close(t.stages[1].tensor.data, f["layer_outputs"][1].get<std::vector<double>>(), 1e-5));

  // No filter: no trace at all.
  Result<ForwardOutput> plain = model.forward(input_for(f));
  EXPECT_TRUE(plain.value().trace.stages.empty());
  EXPECT_EQ(plain.value().hidden.data, out.value().hidden.data);
}

TEST(Transformer, Float16AndBfloat16FilesLoadToTheSameValuesAsTheirFloat32Twins) {
  for (const std::string dtype : {"f16", "bf16"}) {
    const json f = fixture("post_relu_sinusoidal");
    Transformer half = model_for(f), twin = model_for(f);
    const auto a = read_bytes(kDir + "post_relu_sinusoidal." + dtype + ".safetensors");
    const auto b = read_bytes(kDir + "post_relu_sinusoidal." + dtype + "_as_f32.safetensors");
    ASSERT_TRUE(load_safetensors(half, a.data(), a.size()).ok()) << dtype;
    ASSERT_TRUE(load_safetensors(twin, b.data(), b.size()).ok()) << dtype;
    std::vector<std::vector<float>> x, y;
    half.visit_parameters([&](const Parameter& p) { x.push_back(p.values()); });
    twin.visit_parameters([&](const Parameter& p) { y.push_back(p.values()); });
    EXPECT_EQ(x, y) << dtype;
  }
}

TEST(Transformer, SavedWeightsLoadBackIdentically) {
  const json f = fixture("encdec_pre_gelu_learned");
  Transformer a = model_for(f);
  a.initialize_random(7);
  const std::vector<std::uint8_t> bytes = save_safetensors(a);
  Result<safetensors::File> file = safetensors::read(bytes.data(), bytes.size());
  ASSERT_TRUE(file.ok()) << file.error();
  EXPECT_EQ(file.value().metadata.at("format"), "pt");
  Transformer b = model_for(f);
  ASSERT_TRUE(load_safetensors(b, bytes.data(), bytes.size()).ok());
  std::vector<std::vector<float>> x, y;
  a.visit_parameters([&](const Parameter& p) { x.push_back(p.values()); });
  b.visit_parameters([&](const Parameter& p) { y.push_back(p.values()); });
  EXPECT_EQ(x, y);
  EXPECT_EQ(bytes, save_safetensors(b));
}

TEST(Transformer, StrictLoadingNamesTheTensorAndChangesNothing) {
  const json f = fixture("post_relu_sinusoidal");
  Transformer model = model_for(f);
  model.initialize_random(3);
  std::vector<std::vector<float>> before;
  model.visit_parameters([&](const Parameter& p) { before.push_back(p.values()); });

  // Tensors of the model, shifted so a successful partial write would show.
  std::map<std::string, std::pair<std::vector<int>, std::vector<float>>> good;
  model.visit_parameters([&](const Parameter& p) {
    std::vector<float> v = p.values();
    for (float& x : v) x += 1.0f;
    good[p.name()] = {p.shape(), v};
  });
  const auto file_of = [](const std::map<std::string, std::pair<std::vector<int>, std::vector<float>>>& tensors) {
    std::vector<safetensors::TensorRef> refs;
    for (const auto& [name, t] : tensors) refs.push_back({name, t.first, t.second.data()});
    return safetensors::write(refs);
  };
  struct Case {
    std::string what, code, field;
    std::function<std::vector<std::uint8_t>()> bytes;
  };
  const std::vector<Case> cases = {
      {"missing", error_code::kMissingTensor, "layers.1.norm2.bias",
       [&] {
         auto t = good;
         t.erase("layers.1.norm2.bias");
         return file_of(t);
       }},
      {"unexpected", error_code::kUnexpectedTensor, "layers.2.norm1.bias",
       [&] {
         auto t = good;
         t["layers.2.norm1.bias"] = {{12}, std::vector<float>(12, 0.0f)};
         return file_of(t);
       }},
      {"wrong shape", error_code::kShapeMismatch, "head.weight",
       [&] {
         auto t = good;
         t["head.weight"].first = {12, 13};
         return file_of(t);
       }},
      {"non-finite", error_code::kNonFinite, "embed.weight",
       [&] {
         auto t = good;
         t["embed.weight"].second[5] = NAN;
         return file_of(t);
       }},
      {"truncated", error_code::kBadFile, "",
       [&] {
         auto b = file_of(good);
         b.resize(b.size() - 3);
         return b;
       }},
  };
  for (const Case& c : cases) {
    const std::vector<std::uint8_t> bytes = c.bytes();
    const Status s = load_safetensors(model, bytes.data(), bytes.size());
    ASSERT_FALSE(s.ok()) << c.what;
    EXPECT_EQ(s.error_value().code, c.code) << c.what << ": " << s.error();
    if (!c.field.empty()) {
      EXPECT_EQ(s.error_value().field, c.field) << c.what << ": " << s.error();
      EXPECT_NE(s.error().find(c.field), std::string::npos) << c.what << ": " << s.error();
    }
    std::vector<std::vector<float>> after;
    model.visit_parameters([&](const Parameter& p) { after.push_back(p.values()); });
    EXPECT_EQ(after, before) << c.what << ": the model changed";
  }
  const std::vector<std::uint8_t> fine = file_of(good);
  EXPECT_TRUE(load_safetensors(model, fine.data(), fine.size()).ok());
}

TEST(Transformer, AWriteToAParameterIsSeenByTheNextForwardPass) {
  const json f = fixture("pre_gelu_learned_causal_tied");
  Transformer model = model_for(f);
  model.initialize_random(11);
  const ForwardInput in = input_for(f);
  const std::vector<float> first = model.forward(in).value().logits.data;
  EXPECT_EQ(model.forward(in).value().logits.data, first);  // the packed panels are reused
  // The tied head multiplies by embed.weight: change it, and the logits follow (fast == reference).
  Parameter* embed = model.find_parameter("embed.weight");
  ASSERT_NE(embed, nullptr);
  for (float& v : embed->mutable_values()) v *= 0.5f;
  Parameter* w = model.find_parameter("layers.1.linear1.weight");
  ASSERT_NE(w, nullptr);
  for (float& v : w->mutable_values()) v = -v;
  const std::vector<float> fast = model.forward(in).value().logits.data;
  ForwardOptions reference;
  reference.backend = Backend::Reference;
  EXPECT_TRUE(all_close(fast, model.forward(in, reference).value().logits.data, 1e-5));
  EXPECT_FALSE(all_close(fast, first, 1e-3));
}

TEST(Transformer, BadIdsAndLengthsAreErrorsNamingTheField) {
  const json f = fixture("post_relu_sinusoidal");
  Transformer model = model_for(f);
  ForwardInput in = input_for(f);
  in.ids[4] = 13;  // vocab 13: ids 0..12
  Result<ForwardOutput> r = model.forward(in);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error_value().code, error_code::kOutOfRange);
  EXPECT_EQ(r.error_value().field, "ids");
  EXPECT_NE(r.error().find("ids[4] is 13"), std::string::npos) << r.error();
  in = input_for(f);
  in.lengths = {6, 7, 1};
  EXPECT_EQ(model.forward(in).error_value().field, "lengths");
  in = input_for(f);
  in.ids.pop_back();
  EXPECT_EQ(model.forward(in).error_value().code, error_code::kShapeMismatch);
  in = input_for(f);
  in.seq = 11;  // maxSeq 10
  in.ids.assign(3 * 11, 0);
  EXPECT_EQ(model.forward(in).error_value().code, error_code::kOutOfRange);
}

TEST(Transformer, RandomInitialisationIsDeterministicWithUnitNormsAndZeroBiases) {
  const json f = fixture("encdec_post_sinusoidal");
  Transformer a = model_for(f), b = model_for(f);
  a.initialize_random(9);
  b.initialize_random(9);
  std::vector<std::vector<float>> x, y;
  a.visit_parameters([&](const Parameter& p) {
    x.push_back(p.values());
    const std::string& n = p.name();
    const bool norm_weight = n.find("norm") != std::string::npos && n.substr(n.size() - 7) == ".weight";
    if (norm_weight) {
      EXPECT_EQ(p.values(), std::vector<float>(p.size(), 1.0f)) << n;
    } else if (p.shape().size() == 1) {
      EXPECT_EQ(p.values(), std::vector<float>(p.size(), 0.0f)) << n;
    } else {
      float largest = 0;
      for (float v : p) largest = std::max(largest, std::abs(v));
      EXPECT_GT(largest, 0.0f) << n;
    }
  });
  b.visit_parameters([&](const Parameter& p) { y.push_back(p.values()); });
  EXPECT_EQ(x, y);
  b.initialize_random(10);
  y.clear();
  b.visit_parameters([&](const Parameter& p) { y.push_back(p.values()); });
  EXPECT_NE(x, y);
}

// The memory check counts what a forward keeps: recording only the attention weights of a
// long text passes where recording every stage would be refused.
TEST(Transformer, TheMemoryCheckCountsOnlyTheStagesTheFilterKeeps) {
  ModelSpec spec;
  spec.vocab_size = 32;
  spec.d_model = 64;
  spec.heads = 16;
  spec.layers = 4;
  spec.ffn_dim = 64;
  spec.max_seq = 512;
  spec.causal = true;
  const int s = 512;
  RecordFilter weights;
  weights.patterns = {"*.self_attn.weights"};
  // Exactly one (B, H, S, S) tensor per layer; a layer filter keeps one of them.
  EXPECT_EQ(recorded_stage_floats(spec, weights, 1, s, 0), 4.0 * 16 * s * s);
  RecordFilter one_layer = weights;
  one_layer.layers = {2};
  EXPECT_EQ(recorded_stage_floats(spec, one_layer, 1, s, 0), 16.0 * s * s);
  RecordFilter logits;
  logits.patterns = {"logits"};
  EXPECT_EQ(recorded_stage_floats(spec, logits, 2, s, 0), 2.0 * s * 32);
  // Everything recorded is over the limit at this length...
  ASSERT_GT(estimate_forward_floats(spec, 1, s, 0, true), static_cast<double>(kMaxTraceFloats));

  Result<Transformer> made = Transformer::create(spec);
  ASSERT_TRUE(made.ok()) << made.error();
  const Transformer& model = made.value();
  ForwardInput in;
  in.batch = 1;
  in.seq = s;
  for (int i = 0; i < s; ++i) in.ids.push_back(i % spec.vocab_size);
  RecordFilter everything;
  ForwardOptions all;
  all.record = &everything;
  Result<ForwardOutput> refused = model.forward(in, all);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error_value().code, error_code::kLimitExceeded);
  EXPECT_EQ(refused.error_value().field, "ids");
  // ... the attention weights alone are not, and are what the trace then holds.
  ForwardOptions few;
  few.record = &weights;
  Result<ForwardOutput> out = model.forward(in, few);
  ASSERT_TRUE(out.ok()) << out.error();
  ASSERT_EQ(out.value().trace.stages.size(), 4u);
  EXPECT_EQ(out.value().trace.stages[3].tensor.shape, (std::vector<int>{1, 16, s, s}));
}

// ... and the logits it asks for: a next-token view's one row per sequence, not (B, S, V).
TEST(Transformer, TheMemoryCheckCountsOnlyTheLogitRowsAskedFor) {
  ModelSpec spec;
  spec.vocab_size = 200'000;
  spec.d_model = 16;
  spec.heads = 2;
  spec.layers = 1;
  spec.ffn_dim = 16;
  spec.max_seq = 512;
  spec.causal = true;
  Result<Transformer> made = Transformer::create(spec);
  ASSERT_TRUE(made.ok()) << made.error();
  ForwardInput in;
  in.batch = 1;
  in.seq = 400;  // 400 x 200,000 logits = 80 M floats, over the limit
  in.ids.assign(400, 7);
  ForwardOptions all;
  Result<ForwardOutput> refused = made.value().forward(in, all);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error_value().code, error_code::kLimitExceeded);
  ForwardOptions last;
  last.logits = LogitRows::Last;
  Result<ForwardOutput> out = made.value().forward(in, last);
  ASSERT_TRUE(out.ok()) << out.error();
  EXPECT_EQ(out.value().logits.shape, (std::vector<int>{1, 1, 200'000}));
}
