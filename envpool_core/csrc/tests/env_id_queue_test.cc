// Unit tests of EnvIdQueue (core/env_id_queue.h), the bounded MPMC ring of env ids.
// Built with engine_stress (ENVPOOL_CORE_STRESS=ON) and run by tests/test_engine_stress.py;
// the TSan build (ENVPOOL_CORE_TSAN=ON) runs them under ThreadSanitizer.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <mutex>
#include <thread>
#include <vector>

#include "core/env_id_queue.h"
#include "tests/check.h"

using envpool_core::EnvIdQueue;

namespace {

int PopOrDie(EnvIdQueue& q) {
  int v = -1;
  ENVPOOL_CHECK(q.TryPop(&v));
  return v;
}

void TestEmpty() {
  EnvIdQueue q(4);
  int v = 123;
  ENVPOOL_CHECK(!q.TryPop(&v));
  ENVPOOL_CHECK(v == 123);  // a failed pop leaves the output alone
  q.Push(7);
  ENVPOOL_CHECK(PopOrDie(q) == 7);
  ENVPOOL_CHECK(!q.TryPop(&v));
}

// Head and tail go around a 4-cell ring hundreds of times, at every fill level,
// including full: values come out in the order they went in, none lost or repeated.
void TestFifoAcrossWrapAround() {
  EnvIdQueue q(4);
  int next_in = 0;
  int next_out = 0;
  for (int lap = 0; lap < 1000; ++lap) {
    int n = 1 + lap % 4;
    for (int i = 0; i < n; ++i) q.Push(next_in++);
    for (int i = 0; i < n; ++i) ENVPOOL_CHECK(PopOrDie(q) == next_out++);
    int v;
    ENVPOOL_CHECK(!q.TryPop(&v));
  }
  ENVPOOL_CHECK(next_out == next_in);
}

// The capacity is min_capacity rounded up to a power of two: a full ring of
// either size holds every value without blocking.
void TestCapacity() {
  for (int min_capacity : {1, 5, 8, 13}) {
    EnvIdQueue q(static_cast<std::size_t>(min_capacity));
    int capacity = 1;
    while (capacity < min_capacity) capacity <<= 1;
    for (int i = 0; i < capacity; ++i) q.Push(i);
    for (int i = 0; i < capacity; ++i) ENVPOOL_CHECK(PopOrDie(q) == i);
    int v;
    ENVPOOL_CHECK(!q.TryPop(&v));
  }
}

// Pushing into a full ring waits for a consumer to free a cell; it never drops
// the value (the bug that once lost envs for good in async mode).
void TestPushIntoFullRingWaits() {
  constexpr int kCapacity = 4;
  constexpr int kTotal = 200;
  EnvIdQueue q(kCapacity);
  for (int i = 0; i < kCapacity; ++i) q.Push(i);
  std::atomic<bool> producer_done{false};
  std::thread producer([&] {
    for (int i = kCapacity; i < kTotal; ++i) q.Push(i);
    producer_done.store(true, std::memory_order_release);
  });
  for (int want = 0; want < kTotal; ++want) {
    int v;
    while (!q.TryPop(&v)) {
      if (producer_done.load(std::memory_order_acquire) && !q.TryPop(&v)) {
        // Every push returned, yet the ring is empty: the rest were dropped.
        std::fprintf(stderr, "value %d was lost\n", want);
        std::exit(1);
      }
      std::this_thread::yield();
    }
    ENVPOOL_CHECK(v == want);
    // Pop slowly now and then, so the producer finds the ring full and waits.
    if (want % 16 == 0) std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  producer.join();
  int v;
  ENVPOOL_CHECK(!q.TryPop(&v));
}

// Many producers and consumers on a small ring (more threads than the 2 cores of
// CI, so threads are preempted mid-push and mid-pop): every value is popped
// exactly once, and each consumer sees each producer's values in push order.
void TestManyProducersAndConsumers() {
  constexpr int kProducers = 4;
  constexpr int kConsumers = 4;
  constexpr int kPerProducer = 20000;
  EnvIdQueue q(8);
  std::vector<std::atomic<int>> times_popped(kProducers * kPerProducer);
  std::atomic<int> producers_left{kProducers};
  std::vector<std::thread> threads;
  for (int p = 0; p < kProducers; ++p) {
    threads.emplace_back([&, p] {
      for (int i = 0; i < kPerProducer; ++i) q.Push(p * kPerProducer + i);
      producers_left.fetch_sub(1, std::memory_order_release);
    });
  }
  std::atomic<bool> order_ok{true};
  for (int c = 0; c < kConsumers; ++c) {
    threads.emplace_back([&] {
      std::vector<int> last(kProducers, -1);
      for (;;) {
        int v;
        if (!q.TryPop(&v)) {
          if (producers_left.load(std::memory_order_acquire) != 0) {
            std::this_thread::yield();
            continue;
          }
          // Every producer done and the ring empty: nothing more will come.
          if (!q.TryPop(&v)) return;
        }
        times_popped[static_cast<std::size_t>(v)].fetch_add(1, std::memory_order_relaxed);
        int p = v / kPerProducer;
        if (v <= last[static_cast<std::size_t>(p)]) order_ok.store(false);
        last[static_cast<std::size_t>(p)] = v;
      }
    });
  }
  for (auto& t : threads) t.join();
  ENVPOOL_CHECK(order_ok.load());
  for (auto& n : times_popped) ENVPOOL_CHECK(n.load() == 1);
}

// The engine's pattern: a fixed set of ids circulates (workers pop an id, step
// it, push it back) in a ring sized ids + workers, with more workers than cores.
// No id is ever lost or duplicated.
void TestIdsKeepCirculating() {
  constexpr int kIds = 16;
  constexpr int kWorkers = 3;
  constexpr int kSteps = 100000;
  constexpr int kStopToken = -1;
  EnvIdQueue q(kIds + kWorkers);
  for (int id = 0; id < kIds; ++id) q.Push(id);
  std::atomic<int> steps{0};
  std::mutex retired_mutex;
  std::vector<int> retired;
  std::vector<std::thread> workers;
  for (int w = 0; w < kWorkers; ++w) {
    workers.emplace_back([&] {
      for (;;) {
        int id;
        if (!q.TryPop(&id)) {
          std::this_thread::yield();
          continue;
        }
        if (id == kStopToken) return;
        if (steps.fetch_add(1, std::memory_order_relaxed) < kSteps) {
          q.Push(id);
        } else {
          std::lock_guard<std::mutex> lock(retired_mutex);
          retired.push_back(id);
        }
      }
    });
  }
  // Every id comes back once the step budget is spent; a lost id never does.
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  for (;;) {
    {
      std::lock_guard<std::mutex> lock(retired_mutex);
      if (static_cast<int>(retired.size()) == kIds) break;
      if (std::chrono::steady_clock::now() > deadline) {
        std::fprintf(stderr, "only %zu of %d ids came back: ids were lost\n", retired.size(),
                     kIds);
        std::exit(1);
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  for (int w = 0; w < kWorkers; ++w) q.Push(kStopToken);
  for (auto& t : workers) t.join();
  std::sort(retired.begin(), retired.end());
  for (int id = 0; id < kIds; ++id) ENVPOOL_CHECK(retired[static_cast<std::size_t>(id)] == id);
}

}  // namespace

int main() {
  TestEmpty();
  TestFifoAcrossWrapAround();
  TestCapacity();
  TestPushIntoFullRingWaits();
  TestManyProducersAndConsumers();
  TestIdsKeepCirculating();
  std::puts("env_id_queue_test: ok");
  return 0;
}
