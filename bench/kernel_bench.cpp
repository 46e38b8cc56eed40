// Times every GEMM and softmax variant of the registry on a few shapes, after
// warm-up, median of repeated runs; prints one JSON object per line. Built for
// native-release and for both wasm presets (run by bench/run.mjs under Node).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <initializer_list>
#include <iterator>
#include <string>
#include <vector>
#ifdef __wasm_simd128__
#include <wasm_simd128.h>
#endif

#include "attention/param.hpp"
#include "kernels/kernels.hpp"
#include "timing.hpp"

using namespace attention::kernels;
using attention::Q8Activations;

using bench::filled;
using bench::median_ms;

int main(int argc, char** argv) {
  // `kernel_bench gemv`: only the GEMV part (decode's kernels), for a quick look while tuning;
  // `kernel_bench f32gemv`: only the float32 GEMV against the 5x8 tile it replaced (wasm SIMD),
  // after its out-of-cache set; `kernel_bench f32gemv-memory`: only that set (a quick look).
  const bool gemv_only = argc > 1 && std::strcmp(argv[1], "gemv") == 0;
  const bool f32_gemv_memory_only = argc > 1 && std::strcmp(argv[1], "f32gemv-memory") == 0;
  const bool f32_gemv_only = f32_gemv_memory_only || (argc > 1 && std::strcmp(argv[1], "f32gemv") == 0);
  // `kernel_bench decode-attention`: only the decode step's attention kernels (dot_rows over K,
  // weighted_sum_rows over V) over GPT-2 small's cache at 128 positions (12 layers x 12 heads,
  // rows of d_h = 64: 4.7 MB of K and as much of V), each layer's K and V read after 32 MB of
  // other reads (as decoding reads a layer's weights between two layers' attention), against a
  // read-only loop over the same K; ms per step (all 144 heads), the minimum of 10 passes.
  if (argc > 1 && std::strcmp(argv[1], "decode-attention") == 0) {
    constexpr int kLayers = 12, kHeads = 12, kKeys = 128, kDepth = 64;
    const std::size_t head_size = static_cast<std::size_t>(kKeys) * kDepth;
    const std::vector<float> k = filled(head_size * kLayers * kHeads, 0.5f), v = filled(k.size(), 0.25f);
    const std::vector<float> q = filled(kDepth, 1.0f), other = filled(8u << 20, 1.0f);  // 32 MB
    std::vector<float> scores(kKeys, 1.0f / kKeys), out(kDepth);
    volatile float sink = 0;
    // ms of `per_head` over every head, each layer's heads timed after a read of `other`.
    const auto step_ms = [&](const std::function<void(std::size_t)>& per_head) {
      double best = 1e30;
      for (int pass = 0; pass < 10; ++pass) {
        double total = 0;
        for (int layer = 0; layer < kLayers; ++layer) {
          float evict = 0;
          for (std::size_t i = 0; i < other.size(); i += 16) evict += other[i];
          sink = evict;
          const auto start = std::chrono::steady_clock::now();
          for (int h = 0; h < kHeads; ++h) per_head((static_cast<std::size_t>(layer) * kHeads + h) * head_size);
          total += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
        }
        best = std::min(best, total);
      }
      return best;
    };
    const auto report = [](const std::string& kernel, double ms) {
      std::printf("{\"kernel\":\"%s\",\"shape\":\"GPT-2 decode, 128 positions\",\"ms\":%.4f}\n", kernel.c_str(), ms);
    };
    for (const auto& variant : dot_rows_variants())
      report(variant.name, step_ms([&](std::size_t at) {
               variant.fn(q.data(), k.data() + at, kKeys, kDepth, 0.125f, scores.data());
               sink = scores[1];
             }));
    for (const auto& variant : weighted_sum_rows_variants())
      report(variant.name,
             step_ms([&](std::size_t at) { variant.fn(scores.data(), v.data() + at, kKeys, kDepth, out.data()); }));
#ifdef __wasm_simd128__
    report("read K (f32x4 loads)", step_ms([&](std::size_t at) {
             v128_t sum[4] = {wasm_f32x4_splat(0), wasm_f32x4_splat(0), wasm_f32x4_splat(0), wasm_f32x4_splat(0)};
             for (std::size_t i = 0; i < head_size; i += 16)
               for (int part = 0; part < 4; ++part)
                 sum[part] = wasm_f32x4_add(sum[part], wasm_v128_load(k.data() + at + i + 4 * part));
             sink = wasm_f32x4_extract_lane(
                 wasm_f32x4_add(wasm_f32x4_add(sum[0], sum[1]), wasm_f32x4_add(sum[2], sum[3])), 0);
           }));
#endif
    return 0;
  }
#ifdef __wasm_simd128__
  // Decode's float32 GEMV with W out of the caches, as in decoding (a model of 500 MB: each
  // layer's W was evicted since the last token): one pass of one row of x through several
  // packed matrices totalling more than 64 MB (four GPT-2 small layers' QKV, attention out,
  // MLP up and down: 113 MB; GPT-2's LM head alone: 154 MB), against a read-only loop over the
  // same packed bytes (f32x4 adds into four sums: the rate wasm can read this memory at, the
  // GEMV's limit), alternating read, GEMV, read, GEMV; "ofRead" is the GEMV's share of it.
  if (f32_gemv_only) {
    struct Matrix {
      int n, k;
    };
    struct MemorySet {
      const char* what;
      std::vector<Matrix> matrices;
    };
    std::vector<Matrix> gpt2_layers;
    for (int layer = 0; layer < 4; ++layer)
      for (const Matrix w : {Matrix{2304, 768}, Matrix{768, 768}, Matrix{3072, 768}, Matrix{768, 3072}})
        gpt2_layers.push_back(w);
    const MemorySet sets[] = {{"GPT-2 4 layers (113 MB)", gpt2_layers},
                              {"GPT-2 LM head (154 MB)", {{50257, 768}}},
                              {"SmolLM2 LM head (113 MB)", {{49152, 576}}}};
    const Variant<GemmFn>& fast = fastest_gemm();
    for (const MemorySet& set : sets) {
      std::vector<PackedWeight> packed;
      std::vector<std::vector<float>> xs, cs;
      std::size_t bytes = 0;
      for (const Matrix& w : set.matrices) {
        const std::vector<float> values = filled(static_cast<std::size_t>(w.n) * w.k, 0.04f);
        packed.push_back(pack_weight(values.data(), w.n, w.k));
        bytes += packed.back().panels.size() * sizeof(float);
        xs.push_back(filled(static_cast<std::size_t>(w.k), 1.0f));
        cs.emplace_back(static_cast<std::size_t>(w.n));
      }
      const auto gemv_pass = [&] {
        for (std::size_t i = 0; i < set.matrices.size(); ++i) {
          GemmArgs args;
          args.m = 1;
          args.n = set.matrices[i].n;
          args.k = set.matrices[i].k;
          args.a = xs[i].data();
          args.lda = args.k;
          args.ldb = args.k;
          args.c = cs[i].data();
          args.ldc = args.n;
          fast.gemv_packed(args, packed[i].panels.data());
        }
      };
      volatile float read_sink = 0;
      const auto read_pass = [&] {
        v128_t sum[4] = {wasm_f32x4_splat(0), wasm_f32x4_splat(0), wasm_f32x4_splat(0), wasm_f32x4_splat(0)};
        for (const PackedWeight& w : packed) {
          const float* p = w.panels.data();
          const std::size_t size = w.panels.size();  // a multiple of 8 k: whole steps of 16 when k is even
          for (std::size_t i = 0; i + 16 <= size; i += 16)
            for (int h = 0; h < 4; ++h) sum[h] = wasm_f32x4_add(sum[h], wasm_v128_load(p + i + 4 * h));
        }
        const v128_t all = wasm_f32x4_add(wasm_f32x4_add(sum[0], sum[1]), wasm_f32x4_add(sum[2], sum[3]));
        read_sink = wasm_f32x4_extract_lane(all, 0) + wasm_f32x4_extract_lane(all, 3);
      };
      // Two other orders over the same bytes, to see what a GEMV reading W so could gain:
      // panel order (each panel slice through all its depth blocks: kKC-deep slices of 8 KB,
      // 256 KB apart, then the next panel; what keeping a panel's sums in registers across the
      // depth blocks would read), and two streams (the two halves of each matrix at once,
      // 32 bytes of each in turn; what two panels in flight far apart would read).
      const auto read_panel_order = [&] {
        v128_t sum[4] = {wasm_f32x4_splat(0), wasm_f32x4_splat(0), wasm_f32x4_splat(0), wasm_f32x4_splat(0)};
        constexpr int kColumns = 256, kDepth = 256, kPanel = 8;  // the packed layout's blocks and panels
        for (std::size_t i = 0; i < packed.size(); ++i) {
          const int n = set.matrices[i].n, k = set.matrices[i].k;
          const float* base = packed[i].panels.data();
          for (int n0 = 0; n0 < n; n0 += kColumns) {
            const int block_panels = (std::min(kColumns, n - n0) + kPanel - 1) / kPanel;
            for (int q = 0; q < block_panels; ++q)
              for (int k0 = 0; k0 < k; k0 += kDepth) {
                const int kl = std::min(kDepth, k - k0);
                const float* slice =
                    base +
                    kPanel * (static_cast<std::size_t>(n0 / kPanel) * k + static_cast<std::size_t>(block_panels) * k0) +
                    static_cast<std::size_t>(q) * kl * kPanel;
                for (int f = 0; f + 16 <= kl * kPanel; f += 16)
                  for (int h = 0; h < 4; ++h) sum[h] = wasm_f32x4_add(sum[h], wasm_v128_load(slice + f + 4 * h));
              }
          }
        }
        const v128_t all = wasm_f32x4_add(wasm_f32x4_add(sum[0], sum[1]), wasm_f32x4_add(sum[2], sum[3]));
        read_sink = wasm_f32x4_extract_lane(all, 0) + wasm_f32x4_extract_lane(all, 3);
      };
      const auto read_two_streams = [&] {
        v128_t sum[4] = {wasm_f32x4_splat(0), wasm_f32x4_splat(0), wasm_f32x4_splat(0), wasm_f32x4_splat(0)};
        for (const PackedWeight& w : packed) {
          const std::size_t half = w.panels.size() / 2 / 16 * 16;
          const float* first = w.panels.data();
          const float* second = first + half;
          for (std::size_t i = 0; i + 8 <= half; i += 8) {
            sum[0] = wasm_f32x4_add(sum[0], wasm_v128_load(first + i));
            sum[1] = wasm_f32x4_add(sum[1], wasm_v128_load(first + i + 4));
            sum[2] = wasm_f32x4_add(sum[2], wasm_v128_load(second + i));
            sum[3] = wasm_f32x4_add(sum[3], wasm_v128_load(second + i + 4));
          }
        }
        const v128_t all = wasm_f32x4_add(wasm_f32x4_add(sum[0], sum[1]), wasm_f32x4_add(sum[2], sum[3]));
        read_sink = wasm_f32x4_extract_lane(all, 0) + wasm_f32x4_extract_lane(all, 3);
      };
      double read_ms = 0, gemv_ms = 0, panel_order_ms = 0, two_streams_ms = 0;
      for (int round = 0; round < 2; ++round) {
        read_ms += median_ms(read_pass, 7);
        gemv_ms += median_ms(gemv_pass, 7);
        panel_order_ms += median_ms(read_panel_order, 7);
        two_streams_ms += median_ms(read_two_streams, 7);
      }
      std::printf(
          "{\"kernel\":\"%s\",\"shape\":\"%s\",\"outOfCache\":true,\"m\":1,\"bytes\":%zu,\"readMs\":%.4f,"
          "\"gemvMs\":%.4f,\"readBytesPerSecond\":%.4g,\"gemvBytesPerSecond\":%.4g,\"ofRead\":%.3f,"
          "\"readPanelOrderBytesPerSecond\":%.4g,\"readTwoStreamsBytesPerSecond\":%.4g}\n",
          fast.name.c_str(), set.what, bytes, read_ms / 2, gemv_ms / 2, bytes / (read_ms / 2) * 1e3,
          bytes / (gemv_ms / 2) * 1e3, read_ms / gemv_ms, bytes / (panel_order_ms / 2) * 1e3,
          bytes / (two_streams_ms / 2) * 1e3);
      std::fflush(stdout);
    }
    if (f32_gemv_memory_only) return 0;
  }
  // Decode's float32 products (W's rows n x its columns k; GPT-2 small's QKV, MLP up, MLP down
  // and LM head, SmolLM2-135M's MLP up, down and LM head), 1, 2 and 4 rows of x, on the same
  // packed panels: the fast variant's GEMV (gemv_packed, what gemm_fast runs up to
  // kFastGemmGemvUpToRows rows) against its 5x8 tile (gemm_packed), alternating tile, GEMV,
  // tile, GEMV (a busy machine slows both alike); the speed-up is the ratio of the sums of
  // the two medians of each.
  {
    struct F32Gemv {
      int n, k;
      const char* what;
    };
    const F32Gemv shapes[] = {{2304, 768, "GPT-2 QKV"},       {3072, 768, "GPT-2 MLP up"},
                              {768, 3072, "GPT-2 MLP down"},  {50257, 768, "GPT-2 LM head"},
                              {1536, 576, "SmolLM2 MLP up"},  {576, 1536, "SmolLM2 MLP down"},
                              {49152, 576, "SmolLM2 LM head"}};
    const Variant<GemmFn>& fast = fastest_gemm();
    for (const F32Gemv& s :
         f32_gemv_only ? std::vector<F32Gemv>(std::begin(shapes), std::end(shapes)) : std::vector<F32Gemv>{})
      for (const int m : {1, 2, 4}) {
        const std::vector<float> a = filled(static_cast<std::size_t>(m) * s.k, 1.0f);
        const std::vector<float> w = filled(static_cast<std::size_t>(s.n) * s.k, 0.04f);
        std::vector<float> c(static_cast<std::size_t>(m) * s.n);
        const PackedWeight packed = pack_weight(w.data(), s.n, s.k);
        GemmArgs args;
        args.m = m;
        args.n = s.n;
        args.k = s.k;
        args.a = a.data();
        args.lda = s.k;
        args.ldb = s.k;
        args.c = c.data();
        args.ldc = s.n;
        const auto time = [&](PackedGemmFn fn) { return median_ms([&] { fn(args, packed.panels.data()); }, 15); };
        double tile_ms = 0, gemv_ms = 0;
        for (int round = 0; round < 2; ++round) {
          tile_ms += time(fast.gemm_packed);
          gemv_ms += time(fast.gemv_packed);
        }
        std::printf(
            "{\"kernel\":\"%s\",\"shape\":\"%s\",\"m\":%d,\"n\":%d,\"k\":%d,\"tileMs\":%.4f,\"gemvMs\":%.4f,"
            "\"speedup\":%.3f,\"gemvBytesPerSecond\":%.4g}\n",
            fast.name.c_str(), s.what, m, s.n, s.k, tile_ms / 2, gemv_ms / 2, tile_ms / gemv_ms,
            4.0 * s.n * s.k / (gemv_ms / 2) * 1e3);
        std::fflush(stdout);
      }
    if (f32_gemv_only) return 0;
  }
#else
  if (f32_gemv_only) return 0;
#endif
  struct Shape {
    int m, n, k;
    Layout layout;
    const char* what;
  };
  const Shape shapes[] = {
      {128, 2304, 768, Layout::NT, "QKV projection (S=128, E=768)"},
      {512, 768, 768, Layout::NT, "output projection (S=512, E=768)"},
      {512, 512, 64, Layout::NT, "Q K^T per head (S=512, d_k=64)"},
      {512, 64, 512, Layout::NN, "weights V per head (S=512, d_k=64)"},
      {256, 256, 256, Layout::NT, "square 256"},
  };
  for (const Shape& s : gemv_only ? std::vector<Shape>{} : std::vector<Shape>(std::begin(shapes), std::end(shapes))) {
    const std::vector<float> a = filled(static_cast<std::size_t>(s.m) * s.k, 1.0f);
    const std::vector<float> b = filled(static_cast<std::size_t>(s.n) * s.k, 0.5f);
    std::vector<float> c(static_cast<std::size_t>(s.m) * s.n);
    const double flops = 2.0 * s.m * s.n * s.k;
    for (const auto& variant : gemm_variants()) {
      const bool slow = variant.name == "gemm_f32_scalar";
      const double ms =
          median_ms([&] { gemm(variant.fn, s.m, s.n, s.k, a.data(), b.data(), s.layout, 1.0f, nullptr, c.data()); },
                    slow ? 3 : 15);
      std::printf("{\"kernel\":\"%s\",\"shape\":\"%s\",\"m\":%d,\"n\":%d,\"k\":%d,\"ms\":%.4f,\"gflops\":%.2f}\n",
                  variant.name.c_str(), s.what, s.m, s.n, s.k, ms, flops / ms / 1e6);
    }
  }
  // A linear layer y = x W^T (W 1024 x 1024) as a model runs it: F32 with the weight packed
  // once (the fast path's panels, "_packed"), and W held in BF16 / F16 / Q8_0 through each
  // low-bit variant. Decode-like (1 row), 16 rows (where the wasm fast path switches), and
  // prefill-like (64 rows).
  for (const int m : gemv_only ? std::vector<int>{} : std::vector<int>{1, 16, 64}) {
    const int n = 1024, k = 1024;
    const char* what = m == 1    ? "decode (1 x 1024 x 1024)"
                       : m == 16 ? "16 rows (16 x 1024 x 1024)"
                                 : "prefill (64 x 1024 x 1024)";
    const std::vector<float> a = filled(static_cast<std::size_t>(m) * k, 1.0f);
    std::vector<float> c(static_cast<std::size_t>(m) * n);
    const double flops = 2.0 * m * n * k;
    const auto print = [&](const std::string& name, double ms, std::size_t weight_bytes) {
      std::printf(
          "{\"kernel\":\"%s\",\"shape\":\"%s\",\"m\":%d,\"n\":%d,\"k\":%d,\"ms\":%.4f,\"gflops\":%.2f,"
          "\"weightBytes\":%zu}\n",
          name.c_str(), what, m, n, k, ms, flops / ms / 1e6, weight_bytes);
    };
    attention::Parameter weight("w", {n, k}, filled(static_cast<std::size_t>(n) * k, 0.5f));
    const PackedWeight packed = pack_weight(weight.data(), n, k);
    print(fastest_gemm().name + (packed.panels.empty() ? "" : "_packed"),
          median_ms([&] { gemm_fast(m, n, k, a.data(), weight.data(), Layout::NT, 1.0f, nullptr, c.data(), &packed); },
                    15),
          weight.bytes());
    for (attention::Storage storage : {attention::Storage::BF16, attention::Storage::F16, attention::Storage::Q8_0}) {
      attention::Parameter low("w", {n, k}, weight.values());
      low.set_storage(storage);
      for (const auto& variant : low_bit_gemm_variants(storage)) {
        const bool slow = variant.name.find("scalar") != std::string::npos;
        print(
            variant.name,
            median_ms([&] { gemm_low_bit(variant.fn, storage, m, n, k, a.data(), low.row_bits(0), nullptr, c.data()); },
                      slow ? 3 : 15),
            low.bytes());
      }
    }
  }
  // Decode's GEMV, y = x W^T with one row of x, on the shapes a decoder runs per token
  // (SmolLM2-135M's down projection and LM head, GPT-2's MLP down projection, a 1024 square,
  // Llama 3.2 1B's down projection): wall time,
  // the bytes of W read per second, and, beside them, the copy bandwidth of this memory
  // (memcpy of a 256 MB buffer: each byte read once and written once), the limit a
  // memory-bound GEMV approaches. "n x k": W's rows x its columns.
  {
    const std::size_t copy_bytes = std::size_t{256} << 20;
    std::vector<unsigned char> from(copy_bytes, 1), to(copy_bytes, 0);
    const double copy_ms = median_ms([&] { std::memcpy(to.data(), from.data(), copy_bytes); }, 7);
    std::printf("{\"kernel\":\"memcpy\",\"shape\":\"copy 256 MB\",\"ms\":%.4f,\"bytesPerSecond\":%.4g}\n", copy_ms,
                copy_bytes / copy_ms * 1e3);
  }
  struct Gemv {
    int n, k;
    const char* what;
  };
  const Gemv gemvs[] = {{576, 1536, "GEMV 1 x 576 x 1536"},
                        {49152, 576, "GEMV 1 x 49152 x 576"},
                        {768, 3072, "GEMV 1 x 768 x 3072"},
                        {1024, 1024, "GEMV 1 x 1024 x 1024"},
                        {2048, 8192, "GEMV 1 x 2048 x 8192"}};
  for (const Gemv& s : gemvs) {
    const int m = 1;
    const std::vector<float> a = filled(static_cast<std::size_t>(s.k), 1.0f);
    std::vector<float> c(static_cast<std::size_t>(s.n));
    const double flops = 2.0 * s.n * s.k;
    const auto print = [&](const std::string& name, double ms, std::size_t weight_bytes) {
      std::printf(
          "{\"kernel\":\"%s\",\"shape\":\"%s\",\"gemv\":true,\"m\":%d,\"n\":%d,\"k\":%d,\"ms\":%.4f,\"gflops\":%.2f,"
          "\"weightBytes\":%zu,\"bytesPerSecond\":%.4g}\n",
          name.c_str(), s.what, m, s.n, s.k, ms, flops / ms / 1e6, weight_bytes, weight_bytes / ms * 1e3);
    };
    // W's values in [-0.02, 0.02) (steps of 4e-5), a model's scale: 0.3% of them are zero or
    // subnormal as halves (4e-5 < 2^-14), as in a checkpoint with weights of std 0.02, so F16's
    // path for those is timed as often as a model takes it.
    attention::Parameter weight("w", {s.n, s.k}, filled(static_cast<std::size_t>(s.n) * s.k, 0.04f));
    const PackedWeight packed = pack_weight(weight.data(), s.n, s.k);
    print(
        fastest_gemm().name + (packed.panels.empty() ? "" : "_packed"),
        median_ms(
            [&] { gemm_fast(m, s.n, s.k, a.data(), weight.data(), Layout::NT, 1.0f, nullptr, c.data(), &packed); }, 15),
        weight.bytes());
    for (attention::Storage storage : {attention::Storage::BF16, attention::Storage::F16, attention::Storage::Q8_0}) {
      attention::Parameter low("w", {s.n, s.k}, weight.values());
      low.set_storage(storage);
      // The fast path (the last variant) and the in-register kernels; the scalar spec and the
      // block-widening ones are timed on the 1024 shapes above.
      for (const auto& variant : low_bit_gemm_variants(storage)) {
        const bool in_registers = variant.name.find("gemv") != std::string::npos ||
                                  variant.name.find("4x2") != std::string::npos ||
                                  &variant == &low_bit_gemm_variants(storage).back();
        if (!in_registers) continue;
        // As a model runs it: W's owner says whether its values are all finite (F16's GEMV skips
        // its check then); F16's fast path is timed without that too ("_checked").
        const auto time = [&](bool w_finite, Q8Activations activations = Q8Activations::F32) {
          LowBitOptions options;
          options.w_finite = w_finite;
          options.activations = activations;
          return median_ms(
              [&] {
                gemm_low_bit(variant.fn, storage, m, s.n, s.k, a.data(), low.row_bits(0), nullptr, c.data(), options);
              },
              15);
        };
        print(variant.name, time(low.all_finite()), low.bytes());
        if (storage == attention::Storage::F16 && &variant == &low_bit_gemm_variants(storage).back()) {
          print(variant.name + "_checked", time(false), low.bytes());
          // x with one value of 2^15: F16's GEMV keeps the rebias in W's widening then (x times
          // 2^112 would overflow), with the infinity/NaN select per half (since 2026-11-27, commit
          // after 3f52105: before, the finite path without the select, the old fast path).
          std::vector<float> large = a;
          large[0] = 0x1.0p15f;
          print(variant.name + "_x_rebias_in_w",
                median_ms(
                    [&] {
                      gemm_low_bit(variant.fn, storage, m, s.n, s.k, large.data(), low.row_bits(0), nullptr, c.data(),
                                   {low.all_finite()});
                    },
                    15),
                low.bytes());
        }
        // Q8_0 with the activations rounded to int16 and to int8 (q8Activations 'int16', 'int8': the
        // GEMV in integers), alternating int16, int8, int16, int8 (a busy machine slows both alike):
        // each the mean of its two medians.
        if (storage == attention::Storage::Q8_0 && variant.name.find("4x2") == std::string::npos) {
          double int16_ms = 0, int8_ms = 0;
          for (int round = 0; round < 2; ++round) {
            int16_ms += time(low.all_finite(), Q8Activations::Int16) / 2;
            int8_ms += time(low.all_finite(), Q8Activations::Int8) / 2;
          }
          print(variant.name + "_int16", int16_ms, low.bytes());
          print(variant.name + "_int8", int8_ms, low.bytes());
        }
      }
    }
  }
  if (gemv_only) return 0;
  const int rows = 12 * 512, n = 512;
  std::vector<float> scores = filled(static_cast<std::size_t>(rows) * n, 8.0f);
  for (const auto& variant : softmax_variants()) {
    std::vector<float> work = scores;
    const double ms = median_ms(
        [&] {
          work = scores;
          variant.fn(work.data(), rows, n);
        },
        15);
    std::printf("{\"kernel\":\"%s\",\"shape\":\"%d rows x %d\",\"ms\":%.4f}\n", variant.name.c_str(), rows, n, ms);
  }
  return 0;
}
