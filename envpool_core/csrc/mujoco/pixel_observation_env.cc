#include "mujoco/pixel_observation_env.h"

#include <cstring>
#include <utility>

#include "mujoco/egl_context.h"

namespace envpool_core::mujoco {

PixelObservationEnv::PixelObservationEnv(std::unique_ptr<Env> env,
                                         const std::vector<std::size_t>& state_obs_bytes,
                                         int num_info, int width, int height, int frame_stack)
    : env_(std::move(env)),
      columns_(static_cast<std::size_t>(kNumCommonColumns) + state_obs_bytes.size() +
               static_cast<std::size_t>(num_info)),
      row_bytes_(columns_.size(), 0),
      rgb_(static_cast<std::size_t>(width) * static_cast<std::size_t>(height) * 3),
      frames_(rgb_.size() * static_cast<std::size_t>(frame_stack)),
      width_(width),
      height_(height),
      frame_stack_(frame_stack),
      frame_bytes_(rgb_.size()) {
  for (std::size_t bytes : state_obs_bytes) state_obs_.emplace_back(bytes);
  // Every step renders, on whichever thread steps: a machine without EGL is
  // told when the pool is made, not by a worker thread mid-step.
  CheckEglAvailable();
}

OutputRow PixelObservationEnv::TaskRow(const OutputRow& row) {
  int num_columns = static_cast<int>(columns_.size());
  for (int c = 0; c < kNumCommonColumns; ++c) columns_[c] = row.Column<std::uint8_t>(c);
  int num_obs = static_cast<int>(state_obs_.size());
  for (int i = 0; i < num_obs; ++i) columns_[kNumCommonColumns + i] = state_obs_[i].data();
  for (int c = kNumCommonColumns + num_obs; c < num_columns; ++c) {
    columns_[c] = row.Info<std::uint8_t>(c - kNumCommonColumns - num_obs);
  }
  return OutputRow(columns_.data(), row_bytes_.data(), 0, num_obs);
}

void PixelObservationEnv::CopyResult(const OutputRow& from, OutputRow& to) {
  to.reward = from.reward;
  to.terminated = from.terminated;
  to.discount = from.discount;
}

bool PixelObservationEnv::Reset(OutputRow& row) {
  OutputRow task_row = TaskRow(row);
  bool new_episode = env_->Reset(task_row);
  CopyResult(task_row, row);
  oldest_ = 0;
  RenderInto(0);
  for (int s = 1; s < frame_stack_; ++s) {
    std::memcpy(frames_.data() + frame_bytes_ * static_cast<std::size_t>(s), frames_.data(),
                frame_bytes_);
  }
  WriteStack(row);
  return new_episode;
}

void PixelObservationEnv::Step(const void* action, OutputRow& row) {
  OutputRow task_row = TaskRow(row);
  env_->Step(action, task_row);
  CopyResult(task_row, row);
  RenderInto(oldest_);  // the newest frame replaces the oldest
  oldest_ = (oldest_ + 1) % frame_stack_;
  WriteStack(row);
}

void PixelObservationEnv::RenderInto(int slot) {
  env_->Render(rgb_.data());
  std::uint8_t* out = frames_.data() + frame_bytes_ * static_cast<std::size_t>(slot);
  std::size_t plane = static_cast<std::size_t>(width_) * static_cast<std::size_t>(height_);
  for (std::size_t p = 0; p < plane; ++p) {
    out[p] = rgb_[3 * p];
    out[plane + p] = rgb_[3 * p + 1];
    out[2 * plane + p] = rgb_[3 * p + 2];
  }
}

void PixelObservationEnv::WriteStack(OutputRow& row) const {
  auto* obs = row.Obs<std::uint8_t>();
  for (int i = 0; i < frame_stack_; ++i) {
    int slot = (oldest_ + i) % frame_stack_;
    std::memcpy(obs + frame_bytes_ * static_cast<std::size_t>(i),
                frames_.data() + frame_bytes_ * static_cast<std::size_t>(slot), frame_bytes_);
  }
}

}  // namespace envpool_core::mujoco
