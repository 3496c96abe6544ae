// Unit tests of StepperQueues (core/stepper_queues.h): one env-id queue per
// stepper, with stealing. Built with engine_stress (ENVPOOL_CORE_STRESS=ON) and
// run by tests/test_engine_stress.py; the TSan build runs them under
// ThreadSanitizer.
#include <atomic>
#include <cstdio>
#include <thread>
#include <vector>

#include "core/stepper_queues.h"
#include "tests/check.h"

using envpool_core::StepperQueues;

namespace {

int PopOrDie(StepperQueues& q, int stepper) {
  int v = -1;
  ENVPOOL_CHECK(q.Pop(stepper, &v));
  return v;
}

// A stepper takes its own ids first, in the order they came, then the next
// queues' in turn (stepper 1 of 3 looks at 1, 2, 0).
void TestOwnQueueFirstThenTheNext() {
  StepperQueues q(3, 4);
  q.Push(0, 10);
  q.Push(1, 20);
  q.Push(1, 21);
  q.Push(2, 30);
  ENVPOOL_CHECK(PopOrDie(q, 1) == 20);
  ENVPOOL_CHECK(PopOrDie(q, 1) == 21);
  ENVPOOL_CHECK(PopOrDie(q, 1) == 30);
  ENVPOOL_CHECK(PopOrDie(q, 1) == 10);
  int v = 123;
  ENVPOOL_CHECK(!q.Pop(1, &v));
  ENVPOOL_CHECK(v == 123);
}

// With one queue every stepper shares one FIFO (async mode's order before env
// homes, and sync mode's); a stepper index past the queues wraps around.
void TestOneQueueIsOneFifo() {
  StepperQueues q(1, 8);
  for (int i = 0; i < 8; ++i) q.Push(i % 3, i);
  for (int i = 0; i < 8; ++i) ENVPOOL_CHECK(PopOrDie(q, i % 5) == i);
}

// Every queue holds `capacity` ids: all envs may share one home.
void TestEveryEnvOnOneHome() {
  StepperQueues q(4, 16);
  for (int i = 0; i < 16; ++i) q.Push(2, i);
  for (int i = 0; i < 16; ++i) ENVPOOL_CHECK(PopOrDie(q, 0) == i);
}

// Producers push ids onto homes while consumers pop with stealing: every id
// comes out exactly once.
void TestConcurrentNoLossNoDuplicate() {
  constexpr int kSteppers = 4;
  constexpr int kIds = 200000;
  StepperQueues q(kSteppers, 1024);
  std::vector<std::atomic<int>> seen(kIds);
  std::atomic<int> popped{0};
  std::vector<std::thread> threads;
  for (int p = 0; p < 2; ++p) {
    threads.emplace_back([&q, p] {
      for (int i = p; i < kIds; i += 2) q.Push(i % kSteppers, i);
    });
  }
  for (int s = 0; s < kSteppers; ++s) {
    threads.emplace_back([&, s] {
      int id;
      while (popped.load(std::memory_order_relaxed) < kIds) {
        if (q.Pop(s, &id)) {
          seen[static_cast<std::size_t>(id)].fetch_add(1, std::memory_order_relaxed);
          popped.fetch_add(1, std::memory_order_relaxed);
        } else {
          std::this_thread::yield();
        }
      }
    });
  }
  for (auto& t : threads) t.join();
  for (int i = 0; i < kIds; ++i) ENVPOOL_CHECK(seen[static_cast<std::size_t>(i)].load() == 1);
}

}  // namespace

int main() {
  TestOwnQueueFirstThenTheNext();
  TestOneQueueIsOneFifo();
  TestEveryEnvOnOneHome();
  TestConcurrentNoLossNoDuplicate();
  std::printf("stepper_queues_test: ok\n");
  return 0;
}
