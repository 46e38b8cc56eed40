// parallel_for: every index exactly once, in contiguous chunks, for any thread count;
// nested calls run serially; builds without threads stay serial.
#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <vector>

#include "attention/parallel.hpp"

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

TEST(Parallel, ThreadCountIsClamped) {
  ThreadsReset reset;
  EXPECT_EQ(set_max_threads(0), 1);
  EXPECT_EQ(set_max_threads(1000), threads_supported() ? kMaxThreads : 1);
  EXPECT_EQ(max_threads(), threads_supported() ? kMaxThreads : 1);
  EXPECT_EQ(set_max_threads(1), 1);
}

}  // namespace
}  // namespace attention
