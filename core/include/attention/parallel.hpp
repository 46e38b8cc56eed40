#pragma once
// Work split across threads, where the build has them (ATTENTION_THREADS: native builds,
// and the wasm build compiled with -pthread). The core stays serial unless a caller
// raises the thread count: set_max_threads(n) starts n - 1 workers once, and every
// parallel_for after that splits its range into n contiguous chunks, the calling thread
// taking the first. Callers split only work whose numbers do not depend on the split
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

// Calls fn(begin, end) on disjoint chunks covering [0, count), at least `min_chunk` long
// (except a short last one), in parallel when threads are set and the range is worth it.
// Calls made from inside a chunk run serially (no nested splitting).
void parallel_for(int count, int min_chunk, const std::function<void(int begin, int end)>& fn);

}  // namespace attention
