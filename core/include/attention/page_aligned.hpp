#pragma once
// An allocator whose blocks start on a page (4 KB), wherever the heap would have put them: the
// weights a decode step streams from memory (the float GEMM's packed panels, a low-bit
// Parameter's rows) read at a speed that moved with their offset from a page (docs/performance.md,
// "The threaded build's decode step").
#include <cstddef>
#include <new>

namespace attention {

template <class T>
struct PageAlignedAllocator {
  using value_type = T;
  static constexpr std::size_t kAlignment = 4096;
  PageAlignedAllocator() = default;
  template <class U>
  explicit PageAlignedAllocator(const PageAlignedAllocator<U>&) {}
  T* allocate(std::size_t n) { return static_cast<T*>(::operator new(n * sizeof(T), std::align_val_t(kAlignment))); }
  void deallocate(T* p, std::size_t) { ::operator delete(p, std::align_val_t(kAlignment)); }
  template <class U>
  bool operator==(const PageAlignedAllocator<U>&) const {
    return true;
  }
  template <class U>
  bool operator!=(const PageAlignedAllocator<U>&) const {
    return false;
  }
};

}  // namespace attention
