// Counts the bytes the engine's C++ code holds on the wasm heap, by replacing the
// global operator new and delete (every std::vector and std::string of the core
// goes through them). emcc 3.1.6's mallinfo() reports zeros, so this is how the
// leak tests see the heap: heap_bytes_in_use() must return to the same value after
// any call. The counts are atomic: in the threaded engine a parallel_for's pieces may allocate
// on the pool's workers while the caller does too.
#include <atomic>
#include <cstddef>
#include <cstdlib>
#include <new>

namespace {
std::atomic<std::size_t> live_bytes{0};
std::atomic<std::size_t> peak_bytes{0};  // the most live_bytes has been since the last reset_heap_peak()

// Each block carries its size in a header of one max_align_t, so the pointer
// handed out keeps malloc's alignment. (malloc_usable_size is 0 in emcc 3.1.6.)
constexpr std::size_t kHeader = alignof(std::max_align_t);

void* allocate(std::size_t size) {
  auto* block = static_cast<unsigned char*>(std::malloc(size + kHeader));
  if (!block) std::abort();  // exceptions are off; sizes are checked before anything large is allocated
  *reinterpret_cast<std::size_t*>(block) = size;
  const std::size_t live = live_bytes.fetch_add(size, std::memory_order_relaxed) + size;
  std::size_t peak = peak_bytes.load(std::memory_order_relaxed);
  while (live > peak && !peak_bytes.compare_exchange_weak(peak, live, std::memory_order_relaxed)) {
  }
  return block + kHeader;
}

void release(void* p) noexcept {
  if (!p) return;
  unsigned char* block = static_cast<unsigned char*>(p) - kHeader;
  live_bytes.fetch_sub(*reinterpret_cast<std::size_t*>(block), std::memory_order_relaxed);
  std::free(block);
}
}  // namespace

std::size_t heap_bytes_in_use() { return live_bytes.load(std::memory_order_relaxed); }
std::size_t heap_peak_bytes() { return peak_bytes.load(std::memory_order_relaxed); }
void reset_heap_peak() { peak_bytes.store(live_bytes.load(std::memory_order_relaxed), std::memory_order_relaxed); }

void* operator new(std::size_t size) { return allocate(size); }
void* operator new[](std::size_t size) { return allocate(size); }
void* operator new(std::size_t size, const std::nothrow_t&) noexcept { return allocate(size); }
void* operator new[](std::size_t size, const std::nothrow_t&) noexcept { return allocate(size); }
void operator delete(void* p) noexcept { release(p); }
void operator delete[](void* p) noexcept { release(p); }
void operator delete(void* p, std::size_t) noexcept { release(p); }
void operator delete[](void* p, std::size_t) noexcept { release(p); }
