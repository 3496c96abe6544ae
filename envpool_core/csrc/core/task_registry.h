// The tasks the extension knows: id -> options, spec and env factory.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/config.h"
#include "core/env.h"

namespace envpool_core {

struct TaskDef {
  std::string id;  // e.g. "CartPole-v1"
  // Task-specific options with this task's defaults. The common options
  // (num_envs, seed, max_episode_steps, ...) are added by the registry;
  // `max_episode_steps` must be given here since its default depends on the task.
  std::vector<OptionDef> options;
  // Values fixed by the task id (e.g. the ROM name), visible in the config but
  // not settable by the user.
  Config fixed;
  // EnvPool's names for some of the options (e.g. Reacher's `ctrl_cost_weight`
  // for `reward_control_weight`): accepted, so that EnvPool's clients run
  // unchanged, and stored in the config under the option's own name.
  std::map<std::string, std::string> aliases;
  // Options EnvPool has for this task and this task does not take, with what
  // to do instead: the unknown-option error says it.
  std::map<std::string, std::string> refused;
  std::function<EnvSpec(const Config&)> make_spec;
  // Creates env number `env_index`, seeded with `seed`.
  std::function<std::unique_ptr<Env>(const EnvSpec& spec, int env_index, std::uint64_t seed)>
      make_env;
};

// A keyword the task does not take (Python's TypeError for an unexpected
// keyword argument); other option errors are std::invalid_argument.
struct UnknownOptionError : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

class TaskRegistry {
 public:
  static TaskRegistry& Global();

  void Add(TaskDef task);  // throws if the id exists or the task is malformed
  bool Has(const std::string& id) const { return tasks_.count(id) != 0; }
  const TaskDef& Get(const std::string& id) const;  // throws std::out_of_range
  std::vector<std::string> Ids() const;

  // All options `id` accepts (common ones first), with the task's defaults.
  std::vector<OptionDef> Options(const std::string& id) const;

  // The option `key` sets in `id`: `key` itself, or the option it is EnvPool's
  // name for. Throws UnknownOptionError naming the allowed options (and, for an
  // EnvPool option the task does not take, what to do instead).
  std::string OptionName(const std::string& id, const std::string& key) const;

  // Validates user kwargs against the task's options, fills in defaults and
  // derived values (batch_size 0 -> num_envs, num_threads 0 -> cores, seed list)
  // and builds the spec. Throws std::invalid_argument naming the problem.
  EnvSpec MakeSpec(const std::string& id, const std::map<std::string, ConfigValue>& kwargs) const;

 private:
  std::map<std::string, TaskDef> tasks_;
};

// Options every task accepts; max_episode_steps comes from the task.
std::vector<OptionDef> CommonOptions();

}  // namespace envpool_core
