// How every classic-control task is registered: its episode limit, its own
// options, the opt-in `state_in_info`, EnvPool's options it refuses (see
// TaskDef::refused), and a factory for EnvT(spec, seed).
#pragma once

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "classic/state_info.h"
#include "core/task_registry.h"

namespace envpool_core::classic {

template <typename EnvT>
void AddClassicTask(TaskRegistry& registry, std::string id, int max_episode_steps,
                    std::vector<OptionDef> options = {},
                    std::map<std::string, std::string> refused = {}) {
  TaskDef task;
  task.id = std::move(id);
  task.options.push_back(
      OptionDef::Int("max_episode_steps", max_episode_steps, "steps before truncation", 1));
  for (auto& option : options) task.options.push_back(std::move(option));
  task.options.push_back(StateInInfoOption());
  task.refused = std::move(refused);
  task.make_spec = EnvT::MakeSpec;
  task.make_env = [](const EnvSpec& spec, int, std::uint64_t seed) {
    return std::make_unique<EnvT>(spec, seed);
  };
  registry.Add(std::move(task));
}

}  // namespace envpool_core::classic
