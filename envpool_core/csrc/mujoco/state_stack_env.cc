#include "mujoco/state_stack_env.h"

#include <cstring>
#include <utility>

namespace envpool_core::mujoco {

StateStackEnv::StateStackEnv(std::unique_ptr<Env> env,
                             const std::vector<std::size_t>& state_obs_bytes, int num_info,
                             int frame_stack)
    : env_(std::move(env)),
      columns_(static_cast<std::size_t>(kNumCommonColumns) + state_obs_bytes.size() +
               static_cast<std::size_t>(num_info)),
      row_bytes_(columns_.size(), 0),
      state_bytes_(state_obs_bytes),
      frame_stack_(frame_stack) {
  for (std::size_t bytes : state_obs_bytes) {
    states_.emplace_back(bytes * static_cast<std::size_t>(frame_stack));
  }
}

OutputRow StateStackEnv::TaskRow(const OutputRow& row, int slot) {
  int num_columns = static_cast<int>(columns_.size());
  int num_obs = static_cast<int>(states_.size());
  for (int c = 0; c < kNumCommonColumns; ++c) columns_[c] = row.Column<std::uint8_t>(c);
  for (int i = 0; i < num_obs; ++i) {
    columns_[kNumCommonColumns + i] =
        states_[i].data() + state_bytes_[i] * static_cast<std::size_t>(slot);
  }
  for (int c = kNumCommonColumns + num_obs; c < num_columns; ++c) {
    columns_[c] = row.Info<std::uint8_t>(c - kNumCommonColumns - num_obs);
  }
  return OutputRow(columns_.data(), row_bytes_.data(), 0, num_obs);
}

bool StateStackEnv::Reset(OutputRow& row) {
  OutputRow task_row = TaskRow(row, 0);
  bool new_episode = env_->Reset(task_row);
  row.reward = task_row.reward;
  row.terminated = task_row.terminated;
  row.discount = task_row.discount;
  oldest_ = 0;
  for (std::size_t i = 0; i < states_.size(); ++i) {
    for (int s = 1; s < frame_stack_; ++s) {
      std::memcpy(states_[i].data() + state_bytes_[i] * static_cast<std::size_t>(s),
                  states_[i].data(), state_bytes_[i]);
    }
  }
  WriteStack(row);
  return new_episode;
}

void StateStackEnv::Step(const void* action, OutputRow& row) {
  OutputRow task_row = TaskRow(row, oldest_);  // the newest state replaces the oldest
  env_->Step(action, task_row);
  row.reward = task_row.reward;
  row.terminated = task_row.terminated;
  row.discount = task_row.discount;
  oldest_ = (oldest_ + 1) % frame_stack_;
  WriteStack(row);
}

void StateStackEnv::WriteStack(OutputRow& row) const {
  for (std::size_t i = 0; i < states_.size(); ++i) {
    auto* obs = row.Obs<std::uint8_t>(static_cast<int>(i));
    std::size_t bytes = state_bytes_[i];
    for (int k = 0; k < frame_stack_; ++k) {
      int slot = (oldest_ + k) % frame_stack_;
      std::memcpy(obs + bytes * static_cast<std::size_t>(k),
                  states_[i].data() + bytes * static_cast<std::size_t>(slot), bytes);
    }
  }
}

}  // namespace envpool_core::mujoco
