// A buffer of N elements on the stack that moves to the heap only when more
// are asked for: the executor's per-step pointer and type lists, which a
// small node's step would otherwise pay a heap allocation each for.
#pragma once
#include <array>
#include <cstddef>
#include <span>
#include <vector>

namespace tessera::runtime {

template <typename T, size_t N>
class InlineBuffer {
 public:
  explicit InlineBuffer(size_t size) : size_(size) {
    if (size > N) heap_.resize(size);
  }
  InlineBuffer(const InlineBuffer&) = delete;
  InlineBuffer& operator=(const InlineBuffer&) = delete;

  T* data() { return size_ > N ? heap_.data() : local_.data(); }
  T& operator[](size_t i) { return data()[i]; }
  size_t size() const { return size_; }
  std::span<T> span() { return {data(), size_}; }

 private:
  size_t size_;
  std::array<T, N> local_{};
  std::vector<T> heap_;
};

}  // namespace tessera::runtime
