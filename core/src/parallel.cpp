// A fixed pool of workers for parallel_for: started once by set_max_threads, woken per
// call through a generation counter (spinning briefly, then sleeping), each worker taking
// its own chunk. The caller takes chunk 0 and waits until every chunk is done. One parallel_for at a time: nested calls
// (from a chunk) run serially, which also keeps the pool from waiting on itself.
#include "attention/parallel.hpp"

#include <algorithm>

#ifdef ATTENTION_THREADS
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>
#endif

namespace attention {

namespace {

thread_local bool in_parallel_region = false;

void run_serial(int count, const std::function<void(int, int)>& fn) {
  if (count > 0) fn(0, count);
}

#ifdef ATTENTION_THREADS

class Pool {
 public:
  ~Pool() { stop(); }

  void resize(int threads) {
    stop();
    stopping_.store(false);
    // New workers wait for the next call, not one that happened before they existed.
    for (int w = 1; w < threads; ++w) workers_.emplace_back([this, w, seen = job_word_.load()] { work(w, seen); });
  }

  void run(int chunks, int count, const std::function<void(int, int)>& fn) {
    job_ = &fn;
    count_ = count;
    pending_.store(chunks - 1, std::memory_order_relaxed);
    {
      // The release publishes job_, count_ and pending_ with the new word; under the lock so a
      // worker about to sleep either sees the new word or gets the notification.
      std::lock_guard<std::mutex> lock(mutex_);
      const std::uint64_t generation = (job_word_.load(std::memory_order_relaxed) >> kChunkBits) + 1;
      job_word_.store(generation << kChunkBits | static_cast<std::uint64_t>(chunks), std::memory_order_release);
    }
    wake_.notify_all();
    run_chunk(0, chunks);
    // The others finish about when this chunk does: spin a little, then sleep.
    for (int spin = 0; pending_.load(std::memory_order_acquire) != 0; ++spin) {
      if (spin < kSpins) continue;
      std::unique_lock<std::mutex> lock(mutex_);
      done_.wait(lock, [this] { return pending_.load(std::memory_order_acquire) == 0; });
      break;
    }
  }

 private:
  // The job word: a generation counter and, in its low bits, the call's chunk count, read
  // together so a worker never pairs one call's generation with another's chunk count.
  static constexpr int kChunkBits = 8;
  // Spins (atomic loads, tens of microseconds) before sleeping: a training step makes
  // hundreds of calls, and waking a sleeping thread costs more than a short product.
  static constexpr int kSpins = 1 << 16;

  void run_chunk(int index, int chunks) {
    const int begin = static_cast<int>(static_cast<long long>(count_) * index / chunks);
    const int end = static_cast<int>(static_cast<long long>(count_) * (index + 1) / chunks);
    in_parallel_region = true;
    if (begin < end) (*job_)(begin, end);
    in_parallel_region = false;
  }

  void work(int index, std::uint64_t seen) {
    for (;;) {
      std::uint64_t word = job_word_.load(std::memory_order_acquire);
      for (int spin = 0; word == seen && !stopping_.load(std::memory_order_acquire);
           word = job_word_.load(std::memory_order_acquire)) {
        if (++spin < kSpins) continue;
        std::unique_lock<std::mutex> lock(mutex_);
        wake_.wait(lock, [&] { return job_word_.load(std::memory_order_acquire) != seen || stopping_.load(); });
        spin = 0;
      }
      if (stopping_.load(std::memory_order_acquire)) return;
      seen = word;
      const int chunks = static_cast<int>(word & ((1u << kChunkBits) - 1));
      if (index >= chunks) continue;  // this call needs fewer chunks than there are threads
      run_chunk(index, chunks);       // the caller waits for this chunk: job_ and count_ stay put
      if (pending_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
        std::lock_guard<std::mutex> lock(mutex_);
        done_.notify_one();
      }
    }
  }

  void stop() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_.store(true);
    }
    wake_.notify_all();
    for (std::thread& t : workers_) t.join();
    workers_.clear();
  }

  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable wake_, done_;
  std::atomic<std::uint64_t> job_word_{0};
  std::atomic<int> pending_{0};
  std::atomic<bool> stopping_{false};
  const std::function<void(int, int)>* job_ = nullptr;
  int count_ = 0;
};

Pool& pool() {
  static Pool instance;
  return instance;
}

#endif

int thread_count = 1;

}  // namespace

bool threads_supported() {
#ifdef ATTENTION_THREADS
  return true;
#else
  return false;
#endif
}

int set_max_threads(int threads) {
#ifdef ATTENTION_THREADS
  threads = std::clamp(threads, 1, kMaxThreads);
  if (threads != thread_count) {
    pool().resize(threads);
    thread_count = threads;
  }
#else
  (void)threads;
#endif
  return thread_count;
}

int max_threads() { return thread_count; }

void parallel_for(int count, int min_chunk, const std::function<void(int, int)>& fn) {
#ifdef ATTENTION_THREADS
  const int chunks = std::min(thread_count, count / std::max(1, min_chunk));
  if (chunks >= 2 && !in_parallel_region) {
    pool().run(chunks, count, fn);
    return;
  }
#else
  (void)min_chunk;
#endif
  run_serial(count, fn);
}

}  // namespace attention
