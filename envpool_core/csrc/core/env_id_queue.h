// Bounded lock-free multi-producer multi-consumer queue of env ids.
//
// Each cell carries a sequence number that tells producers and consumers
// whether it is free or full for their turn (the classic bounded MPMC ring), so
// pushing and popping is one compare-and-swap plus a store, with no locks.
// Blocking when empty is handled by the pool's worker wake-up logic, not here.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>

namespace envpool_core {

class EnvIdQueue {
 public:
  explicit EnvIdQueue(std::size_t min_capacity) {
    std::size_t capacity = 1;
    while (capacity < min_capacity) capacity <<= 1;
    mask_ = capacity - 1;
    cells_ = std::make_unique<Cell[]>(capacity);
    for (std::size_t i = 0; i < capacity; ++i) cells_[i].sequence.store(i, std::memory_order_relaxed);
  }

  bool TryPush(int value) {
    std::size_t pos = tail_.load(std::memory_order_relaxed);
    for (;;) {
      Cell& cell = cells_[pos & mask_];
      std::size_t seq = cell.sequence.load(std::memory_order_acquire);
      auto diff = static_cast<std::intptr_t>(seq) - static_cast<std::intptr_t>(pos);
      if (diff == 0) {
        if (tail_.compare_exchange_weak(pos, pos + 1, std::memory_order_relaxed)) {
          cell.value = value;
          cell.sequence.store(pos + 1, std::memory_order_release);
          return true;
        }
      } else if (diff < 0) {
        return false;  // full
      } else {
        pos = tail_.load(std::memory_order_relaxed);
      }
    }
  }

  bool TryPop(int* value) {
    std::size_t pos = head_.load(std::memory_order_relaxed);
    for (;;) {
      Cell& cell = cells_[pos & mask_];
      std::size_t seq = cell.sequence.load(std::memory_order_acquire);
      auto diff = static_cast<std::intptr_t>(seq) - static_cast<std::intptr_t>(pos + 1);
      if (diff == 0) {
        if (head_.compare_exchange_weak(pos, pos + 1, std::memory_order_relaxed)) {
          *value = cell.value;
          cell.sequence.store(pos + mask_ + 1, std::memory_order_release);
          return true;
        }
      } else if (diff < 0) {
        return false;  // empty
      } else {
        pos = head_.load(std::memory_order_relaxed);
      }
    }
  }

  bool Empty() const {
    return head_.load(std::memory_order_seq_cst) == tail_.load(std::memory_order_seq_cst);
  }

 private:
  struct Cell {
    std::atomic<std::size_t> sequence{0};
    int value = 0;
  };
  std::unique_ptr<Cell[]> cells_;
  std::size_t mask_ = 0;
  alignas(64) std::atomic<std::size_t> tail_{0};
  alignas(64) std::atomic<std::size_t> head_{0};
};

}  // namespace envpool_core
