#pragma once
// Work split across threads, where the build has them (ATTENTION_THREADS: native builds,
// and the wasm build compiled with -pthread). The core stays serial unless a caller
// raises the thread count: set_max_threads(n) starts n - 1 workers once, and every
// parallel_for after that splits its range into contiguous chunks that the calling thread
// and the workers take. Callers split only work whose numbers do not depend on the split
// (rows of a GEMM, (batch, head) pairs of attention), so every thread count gives the
// same results, bit for bit.
#include <functional>

namespace attention {

// Whether this build can run threads at all.
bool threads_supported();

// Threads parallel_for may use, the caller included (1 = serial, the default). Clamped
// to [1, kMaxThreads]; a build without threads keeps 1. Call it from one thread, not
// while a parallel_for runs. Returns the count now in effect.
inline constexpr int kMaxThreads = 16;
int set_max_threads(int threads);
int max_threads();

// Work smaller than this (in floating-point operations) runs on one thread: waking the
// others costs more, most of all in a browser, where a sleeping pthread's wake-up takes
// a scheduler round trip (the playground's default trace ran 3-6 ms threaded against
// 1.3 ms serial, in a worker, when its attention was split per (batch, head)).
inline constexpr double kMinParallelFlops = 1 << 19;

// The min_chunk for parallel_for over items of `flops_per_item` each: chunks of at least
// kMinParallelFlops, so a range of small items stays on one thread.
inline int min_chunk_for(double flops_per_item) {
  if (!(flops_per_item > 0)) return 1;
  const double items = kMinParallelFlops / flops_per_item;
  return items >= 1 << 30 ? 1 << 30 : items <= 1 ? 1 : static_cast<int>(items + 0.999999);
}

// Calls fn(begin, end) on disjoint near-equal chunks covering [0, count), each at least
// `min_chunk` long, in parallel when threads are set and the range is worth it:
// one chunk a thread, each claimed by whichever thread is free first. Calls made from inside
// a chunk run serially (no nested splitting).
void parallel_for(int count, int min_chunk, const std::function<void(int begin, int end)>& fn);

// The same in up to kBalancedPiecesPerThread chunks a thread, for work that costs the same cut
// finer (a GEMV streaming W: its parts read W once whatever their number); with more than one,
// a thread that starts late (a wake-up) or runs slower takes fewer, the others more. At one (what
// Chromium's decode bench measured best, docs/performance.md) it splits as parallel_for does.
inline constexpr int kBalancedPiecesPerThread = 1;
void parallel_for_balanced(int count, int min_chunk, const std::function<void(int begin, int end)>& fn);

// Work that streams memory (decode's GEMV reading W once) is worth splitting from this many
// bytes a chunk: between a step's products the workers spin, so handing one a chunk costs a
// few microseconds, about the time to read this much.
inline constexpr double kMinParallelBytes = 128 * 1024;

}  // namespace attention
