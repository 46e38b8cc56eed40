// Incremental decoding (kv_cache.hpp, Transformer::forward_cached): at every step the
// cached logits and the new token's attention row equal a full forward over the same
// tokens (1e-5 relative to max(1, |full|)), for a GPT-2-like model and every causal
// modern fixture (RoPE and its scalings, GQA, a window with a pattern and a local RoPE base,
// ALiBi, Gemma's options), with a prompt block, one row at a time, and right-padded
// batches whose sequences have their own lengths; window layers' caches stay bounded; a
// failed step leaves the cache as it was. Generation: greedy determinism, fork, errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "attention/generation.hpp"
#include "attention/pretrained.hpp"
#include "attention/random.hpp"
#include "attention/safetensors.hpp"
#include "attention/tasks.hpp"
#include "attention/weights_io.hpp"
#include "pytorch_training.hpp"
#include "test_util.hpp"

using namespace attention;
using namespace attention::testing;
using namespace attention::pretrained;
using json = nlohmann::json;

namespace {

const std::string kDir = std::string(ATTENTION_FIXTURE_DIR) + "/modern/";

// Greedy decoding (temperature 0) of up to max_new_tokens tokens.
GenerationSettings greedy(int max_new_tokens) {
  GenerationSettings g;
  g.sampler.temperature = 0;
  g.max_new_tokens = max_new_tokens;
  return g;
}

Transformer gpt2_like(int layers = 2) {
  Transformer m = Transformer::create(attention::testing::gpt2_like_spec(layers)).value();
  m.initialize_random(7);
  return m;
}

Transformer fixture_model(const std::string& name) {
  const json f = read_fixture(kDir + name + ".json");
  return load_fixture_model(f, kDir + name + ".safetensors");
}

std::vector<int> random_ids(int n, int vocab, std::uint64_t seed) {
  SplitMix64 rng(seed);
  std::vector<int> ids(static_cast<std::size_t>(n));
  for (int& t : ids) t = static_cast<int>(rng.next() % static_cast<std::uint64_t>(vocab));
  return ids;
}

// The full forward over `ids`: the last row's logits (V) and each layer's last attention row (H, n).
struct Full {
  std::vector<float> logits;
  std::vector<std::vector<float>> rows;
};
Full full_forward(const Transformer& m, const std::vector<int>& ids, Backend backend) {
  ForwardInput in;
  in.ids = ids;
  in.batch = 1;
  in.seq = static_cast<int>(ids.size());
  RecordFilter filter;
  filter.patterns = {std::string(kDecoderStack) + ".self_attn.weights"};
  ForwardOptions o;
  o.backend = backend;
  o.logits = LogitRows::Last;
  o.record = &filter;
  Result<ForwardOutput> out = m.forward(in, o);
  EXPECT_TRUE(out.ok()) << out.error();
  Full f;
  f.logits = out.value().logits.data;
  const int n = in.seq, heads = m.spec().heads;
  for (int l = 0; l < m.spec().layers; ++l) {
    const Stage* w = out.value().trace.find(l, std::string(kDecoderStack) + ".self_attn.weights");
    std::vector<float> row;
    for (int h = 0; h < heads; ++h)
      row.insert(row.end(), w->tensor.ptr() + (static_cast<std::size_t>(h) * n + n - 1) * n,
                 w->tensor.ptr() + (static_cast<std::size_t>(h) * n + n) * n);
    f.rows.push_back(row);
  }
  return f;
}

// A prompt of `prompt` tokens as one block, then the rest one row at a time; every step
// against the full forward.
// worst, if given: the largest |cached - full| / max(1, |full|) over the logits of every step
// (the measure rtol bounds), for tests that state it.
void expect_cached_equals_full(const Transformer& m, int total, int prompt, Backend backend, const std::string& name,
                               double rtol = 1e-5, double* worst = nullptr) {
  const std::vector<int> ids = random_ids(total, m.spec().vocab_size, 11);
  KvCache cache = m.new_cache(1);
  for (int n = prompt; n <= total; ++n) {
    SCOPED_TRACE(name + " after " + std::to_string(n) + " tokens");
    ForwardInput in;
    in.batch = 1;
    in.ids = n == prompt ? std::vector<int>(ids.begin(), ids.begin() + prompt) : std::vector<int>{ids[n - 1]};
    in.seq = static_cast<int>(in.ids.size());
    Result<Transformer::CachedStep> step = m.forward_cached(in, cache, backend);
    ASSERT_TRUE(step.ok()) << step.error();
    ASSERT_EQ(cache.lengths[0], n);
    const Full full = full_forward(m, std::vector<int>(ids.begin(), ids.begin() + n), backend);
    EXPECT_TRUE(all_close(step.value().logits.data, full.logits, rtol));
    for (std::size_t i = 0; worst && i < full.logits.size() && i < step.value().logits.data.size(); ++i)
      *worst = std::max(*worst, std::fabs(step.value().logits.data[i] - full.logits[i]) /
                                    std::max(1.0, std::fabs(double(full.logits[i]))));
    for (int l = 0; l < m.spec().layers; ++l) {
      EXPECT_EQ(step.value().attention[l].shape, (std::vector<int>{1, m.spec().heads, n}));
      EXPECT_TRUE(all_close(step.value().attention[l].data, full.rows[l], rtol)) << "layer " << l;
    }
  }
}

class CachedCausal : public ::testing::TestWithParam<std::tuple<const char*, Backend>> {};

}  // namespace

TEST(KvCache, Gpt2LikeCachedStepsEqualTheFullForward) {
  for (Backend b : {Backend::Fast, Backend::Reference}) expect_cached_equals_full(gpt2_like(), 20, 6, b, "gpt2");
}

TEST(KvCache, SinusoidalToyDecoderCachedStepsEqualTheFullForward) {
  ModelSpec s;
  s.vocab_size = 20;
  s.d_model = 16;
  s.heads = 2;
  s.layers = 2;
  s.ffn_dim = 32;
  s.max_seq = 16;
  s.causal = true;  // post-LN, sinusoidal, linear head: the playground's toy decoder
  Transformer m = Transformer::create(s).value();
  m.initialize_random(3);
  expect_cached_equals_full(m, 16, 1, Backend::Fast, "toy");
}

TEST_P(CachedCausal, EveryStepEqualsTheFullForward) {
  const char* name = std::get<0>(GetParam());
  const Transformer m = fixture_model(name);
  expect_cached_equals_full(m, m.spec().max_seq, 4, std::get<1>(GetParam()), name);
}

INSTANTIATE_TEST_SUITE_P(Modern, CachedCausal,
                         ::testing::Combine(::testing::Values("llama", "llama3_scaled_tied", "qwen2", "qwen3", "gemma3",
                                                              "alibi"),
                                            ::testing::Values(Backend::Fast, Backend::Reference)));

TEST(KvCache, PaddedBatchesContinueEachSequenceFromItsOwnLength) {
  for (const char* name : {"gemma3", "alibi", "llama"}) {
    SCOPED_TRACE(name);
    const Transformer m = fixture_model(name);
    const int vocab = m.spec().vocab_size;
    // Two sequences, right-padded prompts of 3 and 5 real tokens in a block of 5.
    std::vector<std::vector<int>> texts = {random_ids(12, vocab, 1), random_ids(14, vocab, 2)};
    const std::vector<int> prompt_rows = {3, 5};
    KvCache cache = m.new_cache(2);
    ForwardInput in;
    in.batch = 2;
    in.seq = 5;
    in.ids = {texts[0][0], texts[0][1], texts[0][2], 0,           0,
              texts[1][0], texts[1][1], texts[1][2], texts[1][3], texts[1][4]};
    in.lengths = prompt_rows;
    std::vector<int> seen = prompt_rows;
    for (int step = 0; step < 8; ++step) {
      Result<Transformer::CachedStep> r = m.forward_cached(in, cache, Backend::Fast);
      ASSERT_TRUE(r.ok()) << r.error();
      EXPECT_EQ(cache.lengths, seen);
      for (int b = 0; b < 2; ++b) {
        const Full full =
            full_forward(m, std::vector<int>(texts[b].begin(), texts[b].begin() + seen[b]), Backend::Fast);
        const std::vector<float> row(r.value().logits.data.begin() + b * vocab,
                                     r.value().logits.data.begin() + (b + 1) * vocab);
        EXPECT_TRUE(all_close(row, full.logits, 1e-5)) << "sequence " << b << " at " << seen[b];
      }
      in.seq = 1;
      in.lengths = {};
      in.ids = {texts[0][seen[0]], texts[1][seen[1]]};
      seen = {seen[0] + 1, seen[1] + 1};
    }
  }
}

TEST(KvCache, WindowLayersKeepOnlyTheirWindowAndBytesShowGqa) {
  const Transformer m = fixture_model("gemma3");  // window 3, every 2nd layer global, H_kv 1
  const ModelSpec& s = m.spec();
  KvCache cache = m.new_cache(1);
  ForwardInput in;
  in.batch = 1;
  in.ids = random_ids(s.max_seq, s.vocab_size, 5);
  in.seq = s.max_seq;
  ASSERT_TRUE(m.forward_cached(in, cache).ok());
  const std::size_t per_position = 2 * static_cast<std::size_t>(s.kv_head_count()) * s.head_dim() * sizeof(float);
  for (int l = 0; l < s.layers; ++l) {
    const std::size_t expected = (s.local_layer(l) ? s.window : s.max_seq) * per_position;
    EXPECT_EQ(cache.bytes_per_layer()[l], expected) << "layer " << l;
    EXPECT_EQ(cache.layers[l].sequences[0].capacity, s.local_layer(l) ? s.window : s.max_seq);
  }
  EXPECT_LT(s.kv_head_count(), s.heads);  // grouped: bytes count H_kv heads, not H
}

TEST(KvCache, BeyondTheContextIsAnErrorAndTheCacheStaysAsItWas) {
  const Transformer m = gpt2_like();
  KvCache cache = m.new_cache(1);
  ForwardInput in;
  in.batch = 1;
  in.ids = random_ids(m.spec().max_seq, m.spec().vocab_size, 3);
  in.seq = m.spec().max_seq;
  ASSERT_TRUE(m.forward_cached(in, cache).ok());
  const std::vector<std::size_t> bytes = cache.bytes_per_layer();
  in.ids = {1};
  in.seq = 1;
  Result<Transformer::CachedStep> r = m.forward_cached(in, cache);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error_value().code, error_code::kOutOfRange);
  EXPECT_EQ(r.error_value().field, "ids");
  EXPECT_EQ(cache.lengths[0], m.spec().max_seq);
  EXPECT_EQ(cache.bytes_per_layer(), bytes);
  in.ids = {m.spec().vocab_size};
  KvCache fresh = m.new_cache(1);
  EXPECT_EQ(m.forward_cached(in, fresh).error_value().field, "ids");
  EXPECT_EQ(fresh.lengths[0], 0);
}

TEST(KvCache, EncodersCannotDecode) {
  const Transformer m = fixture_model("partial_rotary_linear");
  KvCache cache = m.new_cache(1);
  ForwardInput in;
  in.batch = 1;
  in.ids = {1};
  in.seq = 1;
  EXPECT_EQ(m.forward_cached(in, cache).error_value().field, "model");
}

TEST(Generation, GreedyEqualsTheArgmaxOfTheFullForwardAndSeedsRepeat) {
  const Transformer m = gpt2_like();
  GenerationSettings g = greedy(10);
  Generation gen = Generation::start(m, {1, 2, 3}, g).value();
  while (!gen.done()) {
    const std::vector<int> before = gen.tokens();
    const Full full = full_forward(m, before, Backend::Fast);
    const int argmax = static_cast<int>(std::max_element(full.logits.begin(), full.logits.end()) - full.logits.begin());
    Result<GenerationStep> step = gen.step(5);
    ASSERT_TRUE(step.ok()) << step.error();
    EXPECT_EQ(step.value().token, argmax);
    EXPECT_EQ(step.value().position, static_cast<int>(before.size()));
    EXPECT_EQ(step.value().candidates.size(), 5u);
    EXPECT_EQ(step.value().attention.size(), 2u);
    EXPECT_EQ(step.value().attention[0].shape, (std::vector<int>{4, static_cast<int>(before.size()) + 1}));
  }
  EXPECT_EQ(gen.tokens().size(), 13u);
  EXPECT_FALSE(gen.step().ok());

  g.sampler.temperature = 1.3;
  g.sampler.top_k = 20;
  g.sampler.seed = 42;
  auto run = [&](std::uint64_t seed) {
    g.sampler.seed = seed;
    Generation s = Generation::start(m, {4, 5}, g).value();
    while (!s.done()) EXPECT_TRUE(s.step().ok());
    return s.tokens();
  };
  EXPECT_EQ(run(42), run(42));
  EXPECT_NE(run(42), run(43));
}

TEST(Generation, ForkKeepsThePrefixPutsTheTokenThereAndSharesNothing) {
  const Transformer m = gpt2_like();
  GenerationSettings g = greedy(6);
  g.stop_ids = {};
  Generation gen = Generation::start(m, {1, 2, 3}, g).value();
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(gen.step().ok());
  const std::vector<int> parent = gen.tokens();
  Generation child = gen.fork(4, 9).value();
  EXPECT_EQ(child.tokens(), (std::vector<int>{parent[0], parent[1], parent[2], parent[3], 9}));
  EXPECT_EQ(child.prompt_length(), 3);
  ASSERT_TRUE(child.step().ok());
  EXPECT_EQ(gen.tokens(), parent);  // the parent is untouched
  // The child equals a fresh generation from its tokens.
  Generation fresh = Generation::start(m, {parent[0], parent[1], parent[2], parent[3], 9}, g).value();
  EXPECT_EQ(fresh.step().value().token, child.tokens().back());
  for (int bad : {-1, 6, 100}) {
    Result<Generation> r = gen.fork(bad, 1);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error_value().field, "position");
  }
  EXPECT_EQ(gen.fork(1, 50).error_value().field, "token");
  // A budget already spent: the whole context used, a fork at the last position is done.
  g.max_new_tokens = m.spec().max_seq - 3;
  Generation full = Generation::start(m, {1, 2, 3}, g).value();
  while (!full.done()) ASSERT_TRUE(full.step().ok());
  Result<Generation> last = full.fork(m.spec().max_seq - 1, 7);
  ASSERT_TRUE(last.ok()) << last.error();
  EXPECT_TRUE(last.value().done());
  EXPECT_EQ(last.value().tokens().back(), 7);
  EXPECT_EQ(last.value().tokens().size(), static_cast<std::size_t>(m.spec().max_seq));
}

TEST(Generation, TheCacheHoldsTheWholeBudgetFromTheStartAndIsNeverReLaidOut) {
  // A generation reserves prompt + maxNewTokens slots at once (within the context), so its
  // steps append in place: every layer's K and V stay where they were from step to step.
  const Transformer m = gpt2_like();
  GenerationSettings g = greedy(10);
  Generation gen = Generation::start(m, {1, 2, 3}, g).value();
  std::vector<const float*> keys, values;
  for (const LayerKvCache& layer : gen.cache().layers) {
    EXPECT_EQ(layer.sequences[0].capacity, 13);
    keys.push_back(layer.sequences[0].k.data());
    values.push_back(layer.sequences[0].v.data());
  }
  const std::size_t first_bytes = gen.cache().bytes_per_layer()[0];
  while (!gen.done()) ASSERT_TRUE(gen.step().ok());
  for (std::size_t l = 0; l < keys.size(); ++l) {
    EXPECT_EQ(gen.cache().layers[l].sequences[0].capacity, 13);
    EXPECT_EQ(gen.cache().layers[l].sequences[0].k.data(), keys[l]);
    EXPECT_EQ(gen.cache().layers[l].sequences[0].v.data(), values[l]);
  }
  // The bytes reported count the filled slots, not the reserved ones: 3 positions, then 13.
  EXPECT_EQ(gen.cache().bytes_per_layer()[0], first_bytes / 3 * 13);
  // The whole context at most: a fork's prefix + maxNewTokens can go beyond it.
  g.max_new_tokens = m.spec().max_seq - 3;
  Generation full = Generation::start(m, {1, 2, 3}, g).value();
  EXPECT_EQ(full.cache().layers[0].sequences[0].capacity, m.spec().max_seq);
  for (int i = 0; i < 4; ++i) ASSERT_TRUE(full.step().ok());
  Generation child = full.fork(5, 9).value();
  EXPECT_EQ(child.cache().layers[0].sequences[0].capacity, m.spec().max_seq);
}

// A budget whose cache is beyond kMaxReservedCacheBytes reserves that much only (the rest comes
// by doubling as it fills): a long maxNewTokens for a big model does not take gigabytes at the start.
TEST(Generation, TheReservedCacheStopsAtItsLimit) {
  ModelSpec s = attention::testing::gpt2_like_spec(2);
  s.d_model = 1024;  // K and V of 2 layers: 16 KiB a position, so the limit is 4096 positions
  s.heads = 16;
  s.max_seq = 8192;
  const Transformer m = Transformer::create(s).value();
  const std::size_t per_position = 2 * 2 * sizeof(float) * 1024;
  const int cap = static_cast<int>(kMaxReservedCacheBytes / per_position);
  ASSERT_LT(cap, s.max_seq);
  GenerationSettings g = greedy(s.max_seq - 1);
  Generation big = Generation::start(m, {1}, g).value();
  EXPECT_EQ(big.cache().layers[0].sequences[0].capacity, cap);
  ASSERT_TRUE(big.step().ok());
  g.max_new_tokens = 99;
  EXPECT_EQ(Generation::start(m, {1}, g).value().cache().layers[1].sequences[0].capacity, 100);
}

// A budget whose KV cache would pass kMaxKvCacheBytes is refused when the generation begins
// (limit_exceeded on maxNewTokens, naming the positions that fit), before anything is held; one
// position fewer than the limit's is accepted.
TEST(Generation, ACacheBeyondItsLimitIsRefused) {
  ModelSpec s = attention::testing::gpt2_like_spec(2);
  s.d_model = 8;
  s.heads = 16;
  s.head_dim_setting = 512;  // K and V of 2 layers: 128 KiB a position, so the limit is 4096 positions
  s.max_seq = 8192;
  const Transformer m = Transformer::create(s).value();
  const int fits = static_cast<int>(kMaxKvCacheBytes / (2 * 2 * sizeof(float) * 16 * 512));
  ASSERT_EQ(fits, 4096);
  GenerationSettings g = greedy(fits);  // with the prompt's 2 tokens: 4098 positions
  Result<Generation> refused = Generation::start(m, {1, 2}, g);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error_value().code, std::string(error_code::kLimitExceeded));
  EXPECT_EQ(refused.error_value().field, "maxNewTokens");
  EXPECT_NE(refused.error_value().message.find("4096 positions"), std::string::npos) << refused.error_value().message;
  g.max_new_tokens = fits - 2;
  EXPECT_TRUE(Generation::start(m, {1, 2}, g).ok());
}

TEST(Generation, BadSettingsAreCodedErrors) {
  const Transformer m = gpt2_like();
  auto field = [&](auto change, std::vector<int> prompt = {1}) {
    GenerationSettings g;
    change(g);
    Result<Generation> r = Generation::start(m, prompt, g);
    return r.ok() ? std::string("ok") : r.error_value().field;
  };
  EXPECT_EQ(field([](GenerationSettings& g) { g.sampler.temperature = -0.5; }), "temperature");
  EXPECT_EQ(field([](GenerationSettings& g) { g.sampler.top_p = 0; }), "topP");
  EXPECT_EQ(field([](GenerationSettings& g) { g.sampler.top_p = 1.5; }), "topP");
  EXPECT_EQ(field([](GenerationSettings& g) { g.sampler.top_k = -1; }), "topK");
  EXPECT_EQ(field([](GenerationSettings& g) { g.sampler.min_p = 2; }), "minP");
  EXPECT_EQ(field([](GenerationSettings& g) { g.sampler.repetition_penalty = 0; }), "repetitionPenalty");
  EXPECT_EQ(field([](GenerationSettings& g) { g.max_new_tokens = 24; }), "maxNewTokens");  // 1 + 24 > maxSeq 24
  EXPECT_EQ(field([](GenerationSettings& g) { g.max_new_tokens = 23; }), "ok");
  EXPECT_EQ(field([](GenerationSettings& g) { g.max_new_tokens = 0; }), "maxNewTokens");
  EXPECT_EQ(field([](GenerationSettings&) {}, {}), "ids");
  EXPECT_EQ(field([](GenerationSettings&) {}, {50}), "ids");
  EXPECT_EQ(field([](GenerationSettings& g) { g.stop_ids = {99}; }), "stop");
}

namespace {

std::vector<std::uint8_t> file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.good()) << "missing " << path;
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// A hub checkpoint (config.json, model.safetensors) through the checkpoint loader, as a user loads it.
Transformer hub_checkpoint(const std::string& dir, WeightsMode mode = WeightsMode::Auto,
                           Q8Activations activations = Q8Activations::F32);
Transformer gpt2_tiny() { return hub_checkpoint(std::string(ATTENTION_FIXTURE_DIR) + "/pretrained/gpt2-tiny/"); }
Transformer hub_checkpoint(const std::string& dir, WeightsMode mode, Q8Activations activations) {
  const std::vector<std::uint8_t> config = file_bytes(dir + "config.json");
  Result<HubConfig> c = read_config(std::string(config.begin(), config.end()));
  EXPECT_TRUE(c.ok()) << c.error();
  CheckpointLoader loader = CheckpointLoader::create(c.value(), {mode, activations}).value();
  const std::vector<std::uint8_t> weights = file_bytes(dir + "model.safetensors");
  EXPECT_TRUE(loader.add_file(weights.data(), weights.size(), "model.safetensors").ok());
  return loader.finish().value();
}

class GreedyReference : public ::testing::TestWithParam<const char*> {};

}  // namespace

// tests/reference/generate_greedy_fixtures.py: 20 greedy tokens of PyTorch's reference (a full
// float64 forward per token, no cache), token for token.
TEST_P(GreedyReference, TwentyTokensEqualPyTorchs) {
  const std::string name = GetParam();
  const json f = read_fixture(std::string(ATTENTION_FIXTURE_DIR) + "/generation/" + name + ".json");
  const Transformer m =
      name == "gpt2"
          ? gpt2_tiny()
          : load_fixture_model(f, std::string(ATTENTION_FIXTURE_DIR) + "/generation/" + name + ".safetensors");
  const std::vector<int> continuation = f["continuation"];
  GenerationSettings g = greedy(static_cast<int>(continuation.size()));
  Result<Generation> gen = Generation::start(m, f["prompt"].get<std::vector<int>>(), g);
  ASSERT_TRUE(gen.ok()) << gen.error();
  std::vector<int> ours;
  while (!gen.value().done()) ours.push_back(gen.value().step().value().token);
  EXPECT_EQ(ours, continuation);
}

INSTANTIATE_TEST_SUITE_P(Families, GreedyReference,
                         ::testing::Values("gpt2", "llama", "llama3_scaled_tied", "qwen2", "qwen3", "gemma3", "alibi"));

// The modern families' hub checkpoints (tests/reference/fixtures/hub/, read by the hub loader):
// 20 tokens, a prompt block of 5 then one row at a time, each step against the full forward.
// The reference backend within 1e-5, the fast one within 1e-4: a 1-row step and the full
// forward sum their products in different orders, so the float32 results differ by rounding:
// - natively and in the scalar wasm build the fast backend is Eigen, whose order depends on the matrix sizes (a 1-row
//   step is a matrix-vector product, the full forward a blocked matrix product): up to
//   2.7e-5 relative measured here (E = 48..64, V ~ 560);
// - float32 weights in wasm SIMD: a 1-row step runs the float GEMV (three chains along the
//   depth, kFastGemmGemvUpToRows in kernels.hpp), the full forward the 5x8 tile in depth
//   order: up to 1.3e-5 measured (qwen2-tiny, llama-tiny);
// - 16-bit weights (the -f16 and -bf16 checkpoints): the GEMV of 1 or 2 rows sums even and
//   odd values apart, the blocked product of the full forward in its depth order: up to
//   1.5e-5 in wasm (smollm2-tiny-bf16).
constexpr double kFastTolerance = 1e-4;

TEST(KvCache, HubFamiliesCachedStepsEqualTheFullForward) {
  for (const char* dir : {"llama-tiny", "llama-linear-bias-f16", "mistral-tiny", "qwen2-tiny", "qwen3-tiny-bf16",
                          "smollm2-tiny-bf16", "gemma3-text-tiny"}) {
    const Transformer m = hub_checkpoint(std::string(ATTENTION_FIXTURE_DIR) + "/hub/" + dir + "/");
    for (Backend b : {Backend::Fast, Backend::Reference})
      expect_cached_equals_full(m, std::min(20, m.spec().max_seq), 5, b,
                                std::string(dir) + (b == Backend::Fast ? " fast" : " reference"),
                                b == Backend::Fast ? kFastTolerance : 1e-5);
  }
}

// A trained toy decoder (the shipped reverse and sort checkpoints of web/public/checkpoints,
// causal, learned positions, spec in the file's metadata) completes its task by greedy
// generation: the prompt x_1..x_8 | of a held-out example, then 8 tokens, which must be the
// answer. The Train view measured held-out sequence accuracy 1 (reverse) and 0.992 (sort,
// teacher-forced); generating, an early slip is not corrected, so sort may miss a few: at
// least 48 of 50 (measured: 48), reverse all 50.
TEST(Generation, TrainedToyDecodersCompleteTheirTask) {
  for (const auto& [name, least] : {std::pair{"reverse", 50}, std::pair{"sort", 48}}) {
    SCOPED_TRACE(name);
    const std::vector<std::uint8_t> bytes =
        file_bytes(std::string(ATTENTION_FIXTURE_DIR) + "/../../../web/public/checkpoints/" + name + ".safetensors");
    Result<safetensors::File> file = safetensors::read(bytes.data(), bytes.size());
    ASSERT_TRUE(file.ok()) << file.error();
    Result<ModelSpec> spec = from_json(model_spec_schema(), json::parse(file.value().metadata.at("spec")));
    ASSERT_TRUE(spec.ok()) << spec.error();
    ASSERT_TRUE(spec.value().causal);
    Transformer m = Transformer::create(spec.value()).value();
    ASSERT_TRUE(load_safetensors(m, bytes.data(), bytes.size()).ok());
    TaskOptions task_options;
    task_options.name = name;
    std::unique_ptr<Task> task = std::move(make_task(task_options).value());
    ASSERT_EQ(task->vocab_size(), m.spec().vocab_size);
    int right = 0;
    const std::vector<Example> examples = task->evaluation_set(123, 50);
    for (const Example& e : examples) {
      const int n = task_options.length;
      GenerationSettings g = greedy(n);
      Generation gen = Generation::start(m, std::vector<int>(e.ids.begin(), e.ids.begin() + n + 1), g).value();
      while (!gen.done()) ASSERT_TRUE(gen.step().ok());
      right += gen.tokens() == e.ids;
    }
    EXPECT_GE(right, least) << right << " of 50 completed";
  }
}

// Weights held in 16 bits (the BF16 / F16 files under the default weights mode, above) or
// quantized to 8 bits: the cached path reads them through the same kernels as the full one.
TEST(KvCache, Q8WeightsCachedStepsEqualTheFullForward) {
  const Transformer m = hub_checkpoint(std::string(ATTENTION_FIXTURE_DIR) + "/hub/llama-tiny/", WeightsMode::Q8_0);
  expect_cached_equals_full(m, 20, 5, Backend::Reference, "llama-tiny q8_0 reference");
  expect_cached_equals_full(m, 20, 5, Backend::Fast, "llama-tiny q8_0 fast", kFastTolerance);
}

// With q8Activations 'int16' the cached steps' GEMV multiplies in integers and the full
// forward's GEMM on the rounded rows: each row is rounded by the same rule. The reference
// computes each row's x bit for bit the same both ways (1e-5 holds); the fast paths' x differ
// by float rounding, and where x / d_x lies within that of a half a rounding flips, moving a
// product by d_x |w| (max|x_block| / 32767): measured up to 1.9e-4, so 5e-4 here.
TEST(KvCache, Q8WeightsWithInt16ActivationsCachedStepsEqualTheFullForward) {
  const Transformer m =
      hub_checkpoint(std::string(ATTENTION_FIXTURE_DIR) + "/hub/llama-tiny/", WeightsMode::Q8_0, Q8Activations::Int16);
  expect_cached_equals_full(m, 20, 5, Backend::Reference, "llama-tiny q8_0 int16 reference");
  expect_cached_equals_full(m, 20, 5, Backend::Fast, "llama-tiny q8_0 int16 fast", 5e-4);
}

// q8Activations 'int8' (ggml's Q8_0 x Q8_0): the same rule, so the reference's cached steps equal
// its full forward (1e-5); on the fast paths a flipped rounding would move a product by d_x |w|
// with d_x = max|x_block| / 127, 258 times int16's step: measured 4.8e-7 on llama-tiny (no
// rounding flipped), bounded by int16's 5e-4 here.
TEST(KvCache, Q8WeightsWithInt8ActivationsCachedStepsEqualTheFullForward) {
  const Transformer m =
      hub_checkpoint(std::string(ATTENTION_FIXTURE_DIR) + "/hub/llama-tiny/", WeightsMode::Q8_0, Q8Activations::Int8);
  expect_cached_equals_full(m, 20, 5, Backend::Reference, "llama-tiny q8_0 int8 reference");
  double worst = 0;
  expect_cached_equals_full(m, 20, 5, Backend::Fast, "llama-tiny q8_0 int8 fast", 5e-4, &worst);
  std::printf("int8 activations, fast: cached logits within %.3g of the full forward's\n", worst);
}
