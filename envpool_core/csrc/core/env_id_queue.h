// Bounded lock-free multi-producer multi-consumer queue of env ids.
//
// Each cell carries a sequence number that tells producers and consumers
// whether it is free or full for their turn (the classic bounded MPMC ring), so
// pushing and popping is one compare-and-swap plus a store, with no locks.
// Blocking when empty is handled by the pool's worker wake-up logic, not here.
// Push never fails: the pool sizes the ring for every env plus the stop tokens.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <thread>

#include "core/cpu_relax.h"

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

  // Appends `value`. The caller guarantees the queue never holds more than its
  // capacity, yet a cell can still be busy: a consumer preempted between
  // claiming a cell and releasing it keeps that cell for a whole lap of the
  // ring. Push then waits for that consumer instead of dropping the value
  // (which would lose an env's step for good).
  void Push(int value) {
    std::size_t pos = tail_.load(std::memory_order_relaxed);
    for (int tries = 0;; ++tries) {
      Cell& cell = cells_[pos & mask_];
      std::size_t seq = cell.sequence.load(std::memory_order_acquire);
      auto diff = static_cast<std::intptr_t>(seq) - static_cast<std::intptr_t>(pos);
      if (diff == 0) {
        if (tail_.compare_exchange_weak(pos, pos + 1, std::memory_order_relaxed)) {
          cell.value = value;
          cell.sequence.store(pos + 1, std::memory_order_release);
          return;
        }
      } else if (diff < 0) {
        // The consumer of the previous lap has not released this cell yet.
        if (tries < kSpinsBeforeYield) {
          CpuRelax();
        } else {
          std::this_thread::yield();
        }
        pos = tail_.load(std::memory_order_relaxed);
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

 private:
  static constexpr int kSpinsBeforeYield = 64;

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
