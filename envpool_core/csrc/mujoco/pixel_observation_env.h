// from_pixels: the observation is the rendered frame instead of the state.
//
// Wraps a task's env: the task resets and steps as usual and writes its infos
// into the row, but its state observation arrays go to scratch buffers; the row's
// observation is the last `frame_stack` frames, each 3 x height x width uint8
// (channel first, as Atari's), oldest first. A reset fills the stack with its
// first frame. The frame is rendered on the thread that steps the env, as part
// of the step. Pools without from_pixels never make this wrapper.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "core/env.h"

namespace envpool_core::mujoco {

class PixelObservationEnv final : public Env {
 public:
  // `state_obs_bytes`: the size of each array of the task's own observation;
  // `num_info`: its info arrays; frames are height x width (the env's Render size).
  PixelObservationEnv(std::unique_ptr<Env> env, const std::vector<std::size_t>& state_obs_bytes,
                      int num_info, int width, int height, int frame_stack);

  bool Reset(OutputRow& row) override;
  void Step(const void* action, OutputRow& row) override;
  void Render(std::uint8_t* rgb) override { env_->Render(rgb); }
  void Seed(std::uint64_t seed) override { env_->Seed(seed); }

 private:
  // The row the task writes to: `row`'s info arrays, the scratch observation.
  OutputRow TaskRow(const OutputRow& row);
  static void CopyResult(const OutputRow& from, OutputRow& to);
  // Renders the current frame, channel first, into stack slot `slot`.
  void RenderInto(int slot);
  void WriteStack(OutputRow& row) const;

  std::unique_ptr<Env> env_;
  std::vector<std::vector<std::uint8_t>> state_obs_;
  std::vector<std::uint8_t*> columns_;
  std::vector<std::size_t> row_bytes_;  // all 0: the task's row is row 0 of columns_
  std::vector<std::uint8_t> rgb_;       // one frame as Render writes it (height x width x 3)
  std::vector<std::uint8_t> frames_;    // frame_stack frames, channel first, a ring
  int width_, height_, frame_stack_;
  std::size_t frame_bytes_;
  int oldest_ = 0;  // ring slot of the oldest frame
};

}  // namespace envpool_core::mujoco
