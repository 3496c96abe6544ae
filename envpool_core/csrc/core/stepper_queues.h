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
// With a single queue, every stepper shares it: one FIFO, first come, first
// served. Async mode needs that: a batch is the first envs to finish, and only
// a global order keeps every env served in turn.
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include "core/env_id_queue.h"

namespace envpool_core {

class StepperQueues {
 public:
  // `queues` queues (one per stepper, or one for all), each able to hold
  // `capacity` ids (every env may share a home). Stepper s owns queue
  // s mod queues.
  StepperQueues(int queues, std::size_t capacity) {
    queues_.reserve(static_cast<std::size_t>(queues));
    for (int q = 0; q < queues; ++q) queues_.push_back(std::make_unique<EnvIdQueue>(capacity));
  }

  void Push(int stepper, int id) {
    queues_[static_cast<std::size_t>(stepper) % queues_.size()]->Push(id);
  }

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
