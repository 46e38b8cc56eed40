// parallel_for and parallel_for_balanced: every index exactly once, in contiguous chunks, for
// any thread count; nested calls run serially; builds without threads stay serial. What the
// core splits (training, attention, decode's GEMV and its attention over the cache) gives the
// same bits with any thread count. A piece that throws reaches the caller after every piece.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

#include "attention/attention.hpp"
#include "attention/parallel.hpp"
#include "attention/param.hpp"
#include "attention/random.hpp"
#include "attention/trainer.hpp"
#include "attention/transformer.hpp"
#include "kernels/kernels.hpp"
#include "test_util.hpp"

namespace attention {
namespace {

struct ThreadsReset {
  ~ThreadsReset() { set_max_threads(1); }
};

TEST(Parallel, CoversEveryIndexOnceForAnyThreadCount) {
  ThreadsReset reset;
  for (int threads : {1, 2, 3, 4}) {
    const int effective = set_max_threads(threads);
    EXPECT_EQ(effective, threads_supported() ? threads : 1);
    for (int count : {0, 1, 2, 3, 7, 64, 1001}) {
      for (int min_chunk : {1, 3, 500}) {
        std::vector<std::atomic<int>> hits(static_cast<std::size_t>(count));
        std::mutex mutex;
        std::vector<std::pair<int, int>> chunks;
        parallel_for(count, min_chunk, [&](int begin, int end) {
          ASSERT_LT(begin, end);
          for (int i = begin; i < end; ++i) hits[static_cast<std::size_t>(i)]++;
          std::lock_guard<std::mutex> lock(mutex);
          chunks.emplace_back(begin, end);
        });
        for (int i = 0; i < count; ++i) EXPECT_EQ(hits[static_cast<std::size_t>(i)].load(), 1) << count << " " << i;
        EXPECT_LE(static_cast<int>(chunks.size()), effective);
        if (count > 0 && count < 2 * min_chunk) EXPECT_EQ(chunks.size(), 1u) << "too short to split";
      }
    }
  }
}

// The balanced split: every index once, in chunks of at least min_chunk (a short last one
// aside), up to kBalancedPiecesPerThread a thread (whichever thread takes them).
TEST(Parallel, BalancedSplitCoversEveryIndexOnceInSmallerChunks) {
  ThreadsReset reset;
  for (int threads : {1, 2, 3}) {
    const int effective = set_max_threads(threads);
    for (int count : {0, 1, 5, 96, 1001}) {
      for (int min_chunk : {1, 4, 600}) {
        std::vector<std::atomic<int>> hits(static_cast<std::size_t>(count));
        std::mutex mutex;
        std::vector<std::pair<int, int>> chunks;
        parallel_for_balanced(count, min_chunk, [&](int begin, int end) {
          ASSERT_LT(begin, end);
          for (int i = begin; i < end; ++i) hits[static_cast<std::size_t>(i)]++;
          std::lock_guard<std::mutex> lock(mutex);
          chunks.emplace_back(begin, end);
        });
        for (int i = 0; i < count; ++i) EXPECT_EQ(hits[static_cast<std::size_t>(i)].load(), 1) << count << " " << i;
        const int most = count / min_chunk;
        const int expected =
            effective < 2 || most < 2 ? std::min(count, 1) : std::min(most, effective * kBalancedPiecesPerThread);
        EXPECT_EQ(static_cast<int>(chunks.size()), expected) << count << " " << min_chunk << " " << effective;
        for (const auto& [begin, end] : chunks)
          if (expected > 1) EXPECT_GE(end - begin, min_chunk);
      }
    }
  }
}

TEST(Parallel, NestedCallsRunSerially) {
  ThreadsReset reset;
  set_max_threads(2);
  std::atomic<int> total{0};
  parallel_for(8, 1, [&](int begin, int end) {
    for (int i = begin; i < end; ++i)
      parallel_for(10, 1, [&](int b, int e) {
        EXPECT_EQ(b, 0);  // one chunk: the whole range
        EXPECT_EQ(e, 10);
        total += e - b;
      });
  });
  EXPECT_EQ(total.load(), 80);
}

// A piece that throws: every other piece still runs, the caller gets the exception once all
// have ended, and the pool works as before afterwards, in parallel again (the caller left the
// parallel region: were it stuck there, the next call would run serially and its two pieces
// would never be seen running at once).
// Native builds only: without threads there is no pool (fn runs once, on the caller), and the wasm
// builds compile without exceptions (a throw aborts).
TEST(Parallel, APieceThatThrowsReachesTheCallerAfterEveryPiece) {
#ifdef __EMSCRIPTEN__
  GTEST_SKIP() << "the wasm builds have no exceptions";
#endif
  if (!threads_supported()) GTEST_SKIP() << "no pool in a build without threads";
  ThreadsReset reset;
  ASSERT_EQ(set_max_threads(2), 2);
  for (int throwing_piece : {0, 1}) {
    std::atomic<int> ran{0};
    EXPECT_THROW(parallel_for(2, 1,
                              [&](int begin, int) {
                                ++ran;
                                if (begin == throwing_piece) throw std::runtime_error("piece failed");
                              }),
                 std::runtime_error);
    EXPECT_EQ(ran.load(), 2) << "the other piece ran to its end";
  }
  std::atomic<int> started{0};
  std::atomic<bool> overlapped{false};
  parallel_for(2, 1, [&](int, int) {
    ++started;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (started.load() < 2 && std::chrono::steady_clock::now() < deadline) std::this_thread::yield();
    if (started.load() == 2) overlapped = true;
  });
  EXPECT_TRUE(overlapped.load()) << "after the throw, the next call's two pieces ran at the same time";
}

TEST(Parallel, ThreadCountIsClamped) {
  ThreadsReset reset;
  EXPECT_EQ(set_max_threads(0), 1);
  EXPECT_EQ(set_max_threads(1000), threads_supported() ? kMaxThreads : 1);
  EXPECT_EQ(max_threads(), threads_supported() ? kMaxThreads : 1);
  EXPECT_EQ(set_max_threads(1), 1);
}

// A training step splits its GEMMs by rows and attention by (batch, head): any thread
// count gives the same losses and parameters, bit for bit.
TEST(Parallel, TrainingIsBitForBitTheSameWithAnyThreadCount) {
  ThreadsReset reset;
  auto run = [](int threads) {
    set_max_threads(threads);
    ModelSpec spec;
    spec.vocab_size = 13;
    spec.max_seq = 24;
    spec.d_model = 32;
    spec.heads = 4;
    spec.layers = 2;
    spec.ffn_dim = 96;
    spec.causal = true;
    spec.norm = NormPlacement::Pre;
    spec.positions = Positions::Learned;
    auto model = std::make_shared<Transformer>(Transformer::create(spec).value());
    model->initialize_random(3);
    auto trainer = Trainer::create(model, OptimizerOptions{}, TrainerSettings{}, nullptr).value();
    TrainingBatch batch;
    batch.input.batch = 20;  // rows = 480: big enough for the row split
    batch.input.seq = 24;
    SplitMix64 rng(5);
    for (int i = 0; i < 20 * 24; ++i) {
      batch.input.ids.push_back(static_cast<int>(rng.next() % 13));
      batch.targets.push_back(static_cast<int>(rng.next() % 13));
    }
    std::vector<double> losses;
    for (int step = 0; step < 3; ++step) losses.push_back(trainer->step(batch).value().loss);
    std::vector<float> weights;
    model->visit_parameters(
        [&](const Parameter& p) { weights.insert(weights.end(), p.values().begin(), p.values().end()); });
    return std::make_pair(losses, weights);
  };
  const auto one = run(1);
  for (int threads : {2, 3}) {
    const auto many = run(threads);
    EXPECT_EQ(many.first, one.first) << threads << " threads";
    EXPECT_TRUE(many.second == one.second) << threads << " threads: parameters differ";
  }
}

TEST(Parallel, SmallItemsStayOnOneThread) {
  // Chunks of at least kMinParallelFlops: an item of a quarter of it needs four per chunk.
  EXPECT_EQ(min_chunk_for(kMinParallelFlops / 4), 4);
  EXPECT_EQ(min_chunk_for(kMinParallelFlops / 4 + 1), 4);
  EXPECT_EQ(min_chunk_for(kMinParallelFlops), 1);
  EXPECT_EQ(min_chunk_for(10 * kMinParallelFlops), 1);
  EXPECT_EQ(min_chunk_for(0), 1);
  EXPECT_EQ(min_chunk_for(1e-30), 1 << 30);
  ThreadsReset reset;
  set_max_threads(4);
  // The playground's default attention: 8 (batch, head) items of 2 * 6 * 6 * 16 flops: one chunk.
  std::vector<std::pair<int, int>> chunks;
  std::mutex mutex;
  parallel_for(8, min_chunk_for(2.0 * 6 * 6 * 16), [&](int b, int e) {
    std::lock_guard<std::mutex> lock(mutex);
    chunks.emplace_back(b, e);
  });
  EXPECT_EQ(chunks, (std::vector<std::pair<int, int>>{{0, 8}}));
}

// Attention big enough to split by (batch, head) gives the same stages with any thread count.
TEST(Parallel, LargeAttentionIsBitForBitTheSameWithAnyThreadCount) {
  ThreadsReset reset;
  const int b = 2, h = 4, s = 96, d = 64;  // 2 * 96 * 96 * 64 = 1.2 M flops per (batch, head): split
  ASSERT_EQ(min_chunk_for(2.0 * s * s * d), 1);
  SplitMix64 rng(11);
  auto fill = [&](std::vector<int> sizes) {
    Tensor t({"B", "H", "S", "D"}, std::move(sizes));
    for (float& x : t.data) x = static_cast<float>(static_cast<double>(rng.next() % 2001) / 1000.0 - 1.0);
    return t;
  };
  const Tensor q = fill({b, h, s, d}), k = fill({b, h, s, d}), v = fill({b, h, s, d});
  Tensor blocked({"B", "Sq", "Sk"}, {b, s, s});
  for (int i = 0; i < s; ++i)
    for (int j = i + 1; j < s; ++j) blocked.data[static_cast<std::size_t>(i) * s + j] = 1.0f;  // causal, sentence 0
  set_max_threads(1);
  const AttentionStages one = scaled_dot_product_attention(q, k, v, &blocked, true);
  for (int threads : {2, 3}) {
    set_max_threads(threads);
    const AttentionStages many = scaled_dot_product_attention(q, k, v, &blocked, true);
    EXPECT_TRUE(many.weights.data == one.weights.data) << threads << " threads";
    EXPECT_TRUE(many.output.data == one.output.data) << threads << " threads";
    EXPECT_TRUE(many.scores.data == one.scores.data) << threads << " threads";
  }
}

// Decode's GEMV (one row of A) is split along C's columns (W's rows): with any thread count
// the float GEMM (its packed panels where it packs) and every low-bit storage give the same
// numbers, bit for bit, and they match the scalar spec. 2 x 2100 x 1024 flops: 9 blocks of
// 256 columns (the last ragged), split in 2 or 3.
TEST(Parallel, DecodeGemvIsBitForBitTheSameWithAnyThreadCount) {
  ThreadsReset reset;
  const int m = 1, n = 2100, k = 1024;
  ASSERT_GE(2.0 * m * n * k, 4 * kMinParallelFlops);
  const std::vector<float> a = testing::random_vector(static_cast<std::size_t>(k), 41);
  const std::vector<float> w = testing::random_vector(static_cast<std::size_t>(n) * k, 42, 0.5f);
  const std::vector<float> bias = testing::random_vector(static_cast<std::size_t>(n), 43);
  const kernels::PackedWeight packed = kernels::pack_weight(w.data(), n, k);
  const auto run = [&](int threads, int storage, Q8Activations activations = Q8Activations::F32) {
    set_max_threads(threads);
    std::vector<float> c(static_cast<std::size_t>(n), -7.0f);
    if (storage < 0) {
      kernels::gemm_fast(m, n, k, a.data(), w.data(), kernels::Layout::NT, 1.0f, bias.data(), c.data(), &packed);
    } else {
      Parameter low("w", {n, k}, w);
      low.set_storage(static_cast<Storage>(storage));
      kernels::gemm_low_bit(kernels::fastest_low_bit_gemm(low.storage()).fn, low.storage(), m, n, k, a.data(),
                            low.row_bits(0), bias.data(), c.data(), {/*w_finite=*/false, activations});
    }
    return c;
  };
  for (int storage :
       {-1, static_cast<int>(Storage::BF16), static_cast<int>(Storage::F16), static_cast<int>(Storage::Q8_0)}) {
    const std::vector<float> one = run(1, storage);
    // The spec: the scalar GEMM on the weights as stored (widened).
    std::vector<float> spec(static_cast<std::size_t>(n));
    Parameter held("w", {n, k}, w);
    if (storage >= 0) held.set_storage(static_cast<Storage>(storage));
    const std::vector<float> widened = held.widened();
    kernels::gemm(&kernels::gemm_f32_scalar, m, n, k, a.data(), widened.data(), kernels::Layout::NT, 1.0f, bias.data(),
                  spec.data());
    EXPECT_TRUE(testing::all_close(one, spec, 2e-6 * std::sqrt(static_cast<double>(k)) + 1e-5)) << storage;
    for (int threads : {2, 3}) EXPECT_TRUE(run(threads, storage) == one) << storage << ", " << threads << " threads";
  }
  // Q8_0 with A rounded to int16 or int8 (its GEMV in integers): each thread rounds A the same way.
  for (Q8Activations mode : {Q8Activations::Int16, Q8Activations::Int8}) {
    const std::vector<float> one = run(1, static_cast<int>(Storage::Q8_0), mode);
    EXPECT_FALSE(one == run(1, static_cast<int>(Storage::Q8_0)));  // the option is on
    for (int threads : {2, 3})
      EXPECT_TRUE(run(threads, static_cast<int>(Storage::Q8_0), mode) == one)
          << static_cast<int>(mode) << ", " << threads << " threads";
  }
}

// Decode's attention over the cache (multi_head.cpp's decode_one_row) is split by query heads
// across threads: with 1, 2 and 3 threads every cached step's logits and attention rows are
// the same bits, for multi-head attention (GPT-2's block) and grouped-query attention (RoPE,
// 6 heads on 2 K/V heads: a thread's heads may cross a group). Heads of d_h = 64 over 261+
// keys read 2 x 4 x 261 x 64 bytes >= kMinParallelBytes each, so every step splits.
TEST(Parallel, DecodeAttentionIsBitForBitTheSameWithAnyThreadCount) {
  ThreadsReset reset;
  const int prompt = 260, steps = 4, d = 64;
  ASSERT_GE(2.0 * sizeof(float) * (prompt + 1) * d, kMinParallelBytes);
  ModelSpec mha = testing::gpt2_like_spec(1);
  mha.d_model = mha.heads * d;
  mha.max_seq = prompt + steps;
  ModelSpec gqa = mha;
  gqa.heads = 6;
  gqa.kv_heads = 2;
  gqa.head_dim_setting = d;
  gqa.d_model = 128;
  gqa.positions = Positions::Rope;
  gqa.norm_type = NormType::RmsNorm;
  gqa.ffn = FfnKind::Gated;
  gqa.activation = Activation::SiLU;
  gqa.qkv_bias = gqa.out_bias = gqa.mlp_bias = gqa.head_bias = false;
  for (const ModelSpec& spec : {mha, gqa}) {
    Transformer m = Transformer::create(spec).value();
    m.initialize_random(5);
    SplitMix64 rng(9);
    std::vector<int> ids(static_cast<std::size_t>(prompt + steps));
    for (int& t : ids) t = static_cast<int>(rng.next() % static_cast<std::uint64_t>(spec.vocab_size));
    // The prompt as one block, then `steps` rows one at a time: each step's logits and rows.
    const auto decode = [&](int threads) {
      set_max_threads(threads);
      KvCache cache = m.new_cache(1);
      std::vector<std::vector<float>> out;
      for (int n = prompt; n <= prompt + steps; ++n) {
        ForwardInput in;
        in.batch = 1;
        in.ids = n == prompt ? std::vector<int>(ids.begin(), ids.begin() + prompt) : std::vector<int>{ids[n - 1]};
        in.seq = static_cast<int>(in.ids.size());
        Result<Transformer::CachedStep> step = m.forward_cached(in, cache);
        EXPECT_TRUE(step.ok()) << step.error();
        if (!step.ok()) return out;
        out.push_back(step.value().logits.data);
        for (const Tensor& row : step.value().attention) out.push_back(row.data);
      }
      return out;
    };
    const std::vector<std::vector<float>> one = decode(1);
    ASSERT_EQ(one.size(), static_cast<std::size_t>((steps + 1) * (1 + spec.layers)));
    for (int threads : {2, 3}) EXPECT_TRUE(decode(threads) == one) << spec.kv_head_count() << " K/V heads, " << threads;
  }
}

}  // namespace
}  // namespace attention
