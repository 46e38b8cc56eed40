// A fixed pool of workers for parallel_for: started once by set_max_threads, woken per
// call through a generation counter (spinning briefly, then sleeping; a call takes the lock
// and notifies only when a worker sleeps). The caller and the workers claim the call's pieces
// one at a time, so a worker that wakes late (or is descheduled: the machine is shared) takes
// fewer, and the caller waits only for pieces already running, never for a worker to wake.
// One parallel_for at a time: nested calls (from a piece) run serially, which also keeps the
// pool from waiting on itself. A piece that throws (natively: a bad_alloc; the wasm builds have
// no exceptions) does not end the call early: the other pieces still run, the first exception
// is kept, and the caller rethrows it once every piece is done, so no worker is left holding
// the caller's fn and every thread leaves the parallel region.
#include "attention/parallel.hpp"

#include <algorithm>

#ifdef ATTENTION_THREADS
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>
#endif

namespace attention {

namespace {

void run_serial(int count, const std::function<void(int, int)>& fn) {
  if (count > 0) fn(0, count);
}

#ifdef ATTENTION_THREADS

thread_local bool in_parallel_region = false;

class Pool {
 public:
  ~Pool() { stop(); }

  void resize(int threads) {
    stop();
    stopping_.store(false);
    // New workers wait for the next call, not one that happened before they existed.
    for (int w = 1; w < threads; ++w)
      workers_.emplace_back([this, seen = generation(job_word_.load())] { work(seen); });
  }

  // Runs fn on `pieces` even parts of [0, count), claimed one at a time by the caller and the
  // workers; returns when every piece is done.
  void run(int pieces, int count, const std::function<void(int, int)>& fn) {
    job_ = &fn;
    count_ = count;
    remaining_.store(pieces, std::memory_order_relaxed);
    // The new word publishes job_, count_ and remaining_ (its store releases them, a claim
    // acquires them). A worker that went to sleep counted itself in sleepers_ first, then
    // checks the word under the lock: either it sees this word or this load sees it counted.
    job_word_.store(word(generation(job_word_.load(std::memory_order_relaxed)) + 1, pieces, 0));
    if (sleepers_.load() > 0) {
      { std::lock_guard<std::mutex> lock(mutex_); }
      wake_.notify_all();
    }
    run_pieces();
    // The pieces still running elsewhere end about when this thread's last one does: spin a
    // little, then sleep. A worker that has not woken yet holds no piece, so nothing waits for it.
    for (int spin = 0; remaining_.load(std::memory_order_acquire) != 0; ++spin) {
      if (spin < kSpins) continue;
      caller_sleeping_.store(true);
      std::unique_lock<std::mutex> lock(mutex_);
      // seq_cst, as the worker's decrement and its read of caller_sleeping_: with acquire here the
      // two sides could each miss the other's store, and this wait has no timeout.
      done_.wait(lock, [this] { return remaining_.load() == 0; });
      caller_sleeping_.store(false);
      break;
    }
    // Every piece has ended (remaining_ is 0, acquired above), so nothing writes error_ now.
    if (error_) std::rethrow_exception(std::exchange(error_, nullptr));
  }

 private:
  // The job word: the call's generation, its piece count and the next piece to claim, so a
  // claim (a compare-exchange of the word) never takes a piece of another call.
  static constexpr int kFieldBits = 8;  // pieces < 256
  static constexpr std::uint64_t kFieldMask = (1u << kFieldBits) - 1;
  static std::uint64_t word(std::uint64_t generation, int pieces, int next) {
    return generation << (2 * kFieldBits) | static_cast<std::uint64_t>(pieces) << kFieldBits |
           static_cast<std::uint64_t>(next);
  }
  static std::uint64_t generation(std::uint64_t w) { return w >> (2 * kFieldBits); }
  // Spins (atomic loads, tens of microseconds) before sleeping: a training step makes
  // hundreds of calls, and waking a sleeping thread costs more than a short product.
  static constexpr int kSpins = 1 << 16;

  // Claims and runs pieces of the current call until none is left (or another call began).
  void run_pieces() {
    const std::uint64_t own = generation(job_word_.load(std::memory_order_acquire));
    in_parallel_region = true;
    for (;;) {
      std::uint64_t w = job_word_.load(std::memory_order_acquire);
      const int pieces = static_cast<int>((w >> kFieldBits) & kFieldMask), next = static_cast<int>(w & kFieldMask);
      if (generation(w) != own || next >= pieces) break;
      if (!job_word_.compare_exchange_weak(w, w + 1, std::memory_order_acq_rel, std::memory_order_relaxed)) continue;
      // The claimed piece keeps the call open (remaining_ > 0): job_ and count_ stay put.
      const int begin = static_cast<int>(static_cast<long long>(count_) * next / pieces);
      const int end = static_cast<int>(static_cast<long long>(count_) * (next + 1) / pieces);
      if (begin < end) run_piece(begin, end);
      if (remaining_.fetch_sub(1) == 1 && caller_sleeping_.load()) {
        { std::lock_guard<std::mutex> lock(mutex_); }
        done_.notify_one();
      }
    }
    in_parallel_region = false;
  }

  void run_piece(int begin, int end) {
    try {
      (*job_)(begin, end);
    } catch (...) {
      std::lock_guard<std::mutex> lock(mutex_);
      if (!error_) error_ = std::current_exception();  // the first; the rest are dropped
    }
  }

  void work(std::uint64_t seen) {
    for (;;) {
      std::uint64_t w = job_word_.load(std::memory_order_acquire);
      for (int spin = 0; generation(w) == seen && !stopping_.load(std::memory_order_acquire);
           w = job_word_.load(std::memory_order_acquire)) {
        if (++spin < kSpins) continue;
        sleepers_.fetch_add(1);
        {
          std::unique_lock<std::mutex> lock(mutex_);
          wake_.wait(lock, [&] { return generation(job_word_.load()) != seen || stopping_.load(); });
        }
        sleepers_.fetch_sub(1);
        spin = 0;
      }
      if (stopping_.load(std::memory_order_acquire)) return;
      seen = generation(w);
      run_pieces();  // nothing left if the call ended (or a later one began: its pieces are taken too)
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
  std::atomic<int> remaining_{0}, sleepers_{0};
  std::atomic<bool> stopping_{false}, caller_sleeping_{false};
  const std::function<void(int, int)>* job_ = nullptr;
  int count_ = 0;
  std::exception_ptr error_;  // the first exception a piece threw in this call (under mutex_)
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

namespace {

// Splits [0, count) for the pool: `pieces_per_thread` pieces a thread (at most, each at least
// min_chunk long), or serially when the range is short, threads are off or this is a nested call.
void split(int count, int min_chunk, int pieces_per_thread, const std::function<void(int, int)>& fn) {
#ifdef ATTENTION_THREADS
  const int most = count / std::max(1, min_chunk);
  const int chunks = std::min(thread_count, most);
  if (chunks >= 2 && !in_parallel_region) {
    pool().run(std::min({most, chunks * pieces_per_thread, 255}), count, fn);
    return;
  }
#else
  (void)min_chunk;
  (void)pieces_per_thread;
#endif
  run_serial(count, fn);
}

}  // namespace

void parallel_for(int count, int min_chunk, const std::function<void(int, int)>& fn) { split(count, min_chunk, 1, fn); }

void parallel_for_balanced(int count, int min_chunk, const std::function<void(int, int)>& fn) {
  split(count, min_chunk, kBalancedPiecesPerThread, fn);
}

}  // namespace attention
