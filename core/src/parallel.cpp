// A fixed pool of workers for parallel_for: started once by set_max_threads, woken per
// call through a generation counter, each worker taking its own chunk. The caller takes
// chunk 0 and waits until every chunk is done. One parallel_for at a time: nested calls
// (from a chunk) run serially, which also keeps the pool from waiting on itself.
#include "attention/parallel.hpp"

#include <algorithm>

#ifdef ATTENTION_THREADS
#include <condition_variable>
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

  int size() const { return static_cast<int>(workers_.size()) + 1; }

  void resize(int threads) {
    stop();
    stopping_ = false;
    // New workers wait for the next call, not one that happened before they existed.
    for (int w = 1; w < threads; ++w) workers_.emplace_back([this, w, seen = generation_] { work(w, seen); });
  }

  void run(int chunks, int count, const std::function<void(int, int)>& fn) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      job_ = &fn;
      count_ = count;
      chunks_ = chunks;
      pending_ = chunks - 1;
      ++generation_;
    }
    wake_.notify_all();
    run_chunk(0);
    std::unique_lock<std::mutex> lock(mutex_);
    done_.wait(lock, [this] { return pending_ == 0; });
    job_ = nullptr;
  }

 private:
  void run_chunk(int index) {
    const int begin = static_cast<int>(static_cast<long long>(count_) * index / chunks_);
    const int end = static_cast<int>(static_cast<long long>(count_) * (index + 1) / chunks_);
    in_parallel_region = true;
    if (begin < end) (*job_)(begin, end);
    in_parallel_region = false;
  }

  void work(int index, unsigned long long seen) {
    for (;;) {
      {
        std::unique_lock<std::mutex> lock(mutex_);
        wake_.wait(lock, [&] { return stopping_ || generation_ != seen; });
        if (stopping_) return;
        seen = generation_;
        if (index >= chunks_) continue;  // this call needs fewer chunks than there are threads
      }
      run_chunk(index);
      std::lock_guard<std::mutex> lock(mutex_);
      if (--pending_ == 0) done_.notify_one();
    }
  }

  void stop() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
    }
    wake_.notify_all();
    for (std::thread& t : workers_) t.join();
    workers_.clear();
  }

  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable wake_, done_;
  const std::function<void(int, int)>* job_ = nullptr;
  int count_ = 0, chunks_ = 1, pending_ = 0;
  unsigned long long generation_ = 0;
  bool stopping_ = false;
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
