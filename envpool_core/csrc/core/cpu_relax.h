// A polite busy-wait hint for spin loops.
#pragma once

#include <chrono>
#include <thread>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace envpool_core {

inline void CpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  _mm_pause();
#elif defined(__aarch64__)
  asm volatile("yield" ::: "memory");
#endif
}

// Spins until ready() holds (true) or `budget` has passed (false). The clock is
// read every few polls: a pause is 10-150 cycles depending on the CPU, so a
// budget in time means the same on every machine. With `yield`, each poll
// yields the core instead of pausing: when there are more busy threads than
// cores, the thread being waited for may need this very core.
template <class Ready>
bool SpinUntil(Ready&& ready, std::chrono::nanoseconds budget, bool yield = false) {
  auto deadline = std::chrono::steady_clock::now() + budget;
  for (;;) {
    for (int i = 0; i < 16; ++i) {
      if (ready()) return true;
      if (yield) {
        std::this_thread::yield();
      } else {
        CpuRelax();
      }
    }
    if (std::chrono::steady_clock::now() >= deadline) return ready();
  }
}

}  // namespace envpool_core
