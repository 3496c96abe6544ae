// One env-id queue per stepper (each worker thread, and the caller waiting in
// recv()), with stealing.
//
// An env is queued on its home stepper, the one that stepped it last, so its
// state (a MuJoCo model's data: tens of kB) tends to stay in one core's cache
// instead of moving to whichever thread is free. A stepper pops its own queue
// first, then takes from the others in turn, so no env waits while a stepper
// is idle, and homes follow the steppers that have time to spare: the split of
// envs between steppers settles where each is busy.
//
// Stepper s owns queue s mod the number of queues. The pool uses one queue per
// worker in async mode; the caller (stepper num_threads) is no home: it steps
// only while it waits in recv(), so envs queued on it would wait while the
// workers serve their own (they starved in tests/test_engine.py's fairness
// test). In sync mode the pool has one queue, as homes measured 0.91x on
// Humanoid-v5 16,16,1 (benchmark/results/mujoco_ceiling.md).
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include "core/env_id_queue.h"

namespace envpool_core {

class StepperQueues {
 public:
  // `queues` queues, each able to hold `capacity` ids (every env may share a
  // home).
  StepperQueues(int queues, std::size_t capacity) {
    queues_.reserve(static_cast<std::size_t>(queues));
    for (int q = 0; q < queues; ++q) queues_.push_back(std::make_unique<EnvIdQueue>(capacity));
  }

  void Push(int stepper, int id) {
    queues_[static_cast<std::size_t>(stepper) % queues_.size()]->Push(id);
  }

  int size() const { return static_cast<int>(queues_.size()); }

  // Pops from `stepper`'s own queue, else from the next non-empty one after it.
  bool Pop(int stepper, int* id) {
    std::size_t n = queues_.size();
    std::size_t own = static_cast<std::size_t>(stepper) % n;
    for (std::size_t k = 0; k < n; ++k) {
      if (queues_[(own + k) % n]->TryPop(id)) return true;
    }
    return false;
  }

 private:
  std::vector<std::unique_ptr<EnvIdQueue>> queues_;
};

}  // namespace envpool_core
