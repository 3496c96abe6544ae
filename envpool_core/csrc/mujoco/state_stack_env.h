// frame_stack without from_pixels: each observation array is the last `frame_stack`
// states of it, shape (frame_stack, *its shape), oldest first, as EnvPool stacks them. A
// reset fills the stack with its first state.
//
// Wraps a task's env: the task resets and steps as usual and writes its infos into
// the row, but its observation arrays go to a slot of rings that hold the last
// `frame_stack` states; the row's observation is each ring, oldest first. Pools with
// frame_stack 1 never make this wrapper.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "core/env.h"

namespace envpool_core::mujoco {

class StateStackEnv final : public Env {
 public:
  // `state_obs_bytes`: the size of each of the task's observation arrays (one state);
  // `num_info`: its info arrays.
  StateStackEnv(std::unique_ptr<Env> env, const std::vector<std::size_t>& state_obs_bytes,
                int num_info, int frame_stack);

  bool Reset(OutputRow& row) override;
  void Step(const void* action, OutputRow& row) override;
  void Render(std::uint8_t* rgb) override { env_->Render(rgb); }
  void Seed(std::uint64_t seed) override { env_->Seed(seed); }

 private:
  // The row the task writes to: `row`'s common and info arrays, ring slot `slot` of each
  // observation array.
  OutputRow TaskRow(const OutputRow& row, int slot);
  void WriteStack(OutputRow& row) const;

  std::unique_ptr<Env> env_;
  std::vector<std::uint8_t*> columns_;
  std::vector<std::size_t> row_bytes_;  // all 0: the task's row is row 0 of columns_
  std::vector<std::vector<std::uint8_t>> states_;  // per obs array: frame_stack states, a ring
  std::vector<std::size_t> state_bytes_;
  int frame_stack_;
  int oldest_ = 0;  // ring slot of the oldest state
};

}  // namespace envpool_core::mujoco
