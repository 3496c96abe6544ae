#include "core/task_registry.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <stdexcept>

#include "core/usable_cpus.h"

namespace envpool_core {

TaskRegistry& TaskRegistry::Global() {
  static TaskRegistry registry;
  return registry;
}

namespace {
OptionDef SeedOption() {
  OptionDef seed{"seed", OptionType::kSeed, std::int64_t{42},
                 "env i is seeded with seed + i, or a sequence of num_envs seeds"};
  // EnvPool's range (its seeds are C++ ints).
  seed.min = static_cast<double>(std::numeric_limits<std::int32_t>::min());
  seed.max = static_cast<double>(std::numeric_limits<std::int32_t>::max());
  return seed;
}
}  // namespace

std::vector<OptionDef> CommonOptions() {
  return {
      OptionDef::Int("num_envs", 1, "number of environments in the pool", 1, 1 << 20),
      OptionDef::Int("batch_size", 0,
                     "envs returned by recv(); 0 or num_envs = sync mode, fewer = async mode", 0,
                     1 << 20),
      // 1024: four times the hardware threads of the largest machine EnvPool's paper ran
      // on (a DGX-A100's 256); a machine that cannot start that many gets an error.
      OptionDef::Int("num_threads", 0,
                     "worker threads; 0 = min(batch_size, CPUs the process may run on)", 0, 1024),
      OptionDef::Int("thread_affinity_offset", -1,
                     "-1 = no pinning; k pins worker t to the ((k + t) mod n)-th of the n CPUs the "
                     "process may run on", -1, 1 << 20),
      SeedOption(),
  };
}

void TaskRegistry::Add(TaskDef task) {
  if (tasks_.count(task.id) != 0) throw std::logic_error("task registered twice: " + task.id);
  bool has_limit = std::any_of(task.options.begin(), task.options.end(),
                               [](const OptionDef& d) { return d.name == "max_episode_steps"; });
  if (!has_limit || !task.make_spec || !task.make_env) {
    throw std::logic_error("task " + task.id + " lacks max_episode_steps, make_spec or make_env");
  }
  auto is_option = [&task](const std::string& name) {
    return std::any_of(task.options.begin(), task.options.end(),
                       [&name](const OptionDef& d) { return d.name == name; });
  };
  for (const auto& [alias, name] : task.aliases) {
    if (is_option(alias) || !is_option(name)) {
      throw std::logic_error("task " + task.id + ": alias " + alias + " of " + name +
                             " is an option itself, or names none");
    }
  }
  std::string id = task.id;
  tasks_.emplace(std::move(id), std::move(task));
}

const TaskDef& TaskRegistry::Get(const std::string& id) const {
  auto it = tasks_.find(id);
  if (it == tasks_.end()) throw std::out_of_range("unknown task id '" + id + "'");
  return it->second;
}

std::vector<std::string> TaskRegistry::Ids() const {
  std::vector<std::string> ids;
  ids.reserve(tasks_.size());
  for (const auto& kv : tasks_) ids.push_back(kv.first);
  return ids;
}

std::vector<OptionDef> TaskRegistry::Options(const std::string& id) const {
  std::vector<OptionDef> options = CommonOptions();
  const TaskDef& task = Get(id);
  options.insert(options.end(), task.options.begin(), task.options.end());
  return options;
}

std::string TaskRegistry::OptionName(const std::string& id, const std::string& key) const {
  const TaskDef& task = Get(id);
  auto alias = task.aliases.find(key);
  if (alias != task.aliases.end()) return alias->second;
  std::vector<OptionDef> options = Options(id);
  for (const auto& d : options) {
    if (d.name == key) return key;
  }
  std::string message = "unknown option '" + key + "' for " + id;
  auto refused = task.refused.find(key);
  if (refused != task.refused.end()) message += " (an EnvPool option: " + refused->second + ")";
  if (task.fixed.Has(key)) {  // e.g. Atari's `task`, the ROM: EnvPool would take another
    message += " (fixed by the task id: the config shows " + id + "'s value; another value is "
               "another task id)";
  }
  std::string allowed;
  for (const auto& d : options) allowed += (allowed.empty() ? "" : ", ") + d.name;
  for (const auto& kv : task.aliases) allowed += ", " + kv.first + " (= " + kv.second + ")";
  throw UnknownOptionError(message + "; allowed options: " + allowed);
}

EnvSpec TaskRegistry::MakeSpec(const std::string& id,
                               const std::map<std::string, ConfigValue>& kwargs) const {
  const TaskDef& task = Get(id);
  std::vector<OptionDef> options = Options(id);

  std::map<std::string, ConfigValue> given;  // by option name
  std::map<std::string, std::string> given_as;  // the keyword that set it
  for (const auto& kv : kwargs) {
    std::string name = OptionName(id, kv.first);
    if (!given_as.emplace(name, kv.first).second) {
      throw std::invalid_argument("'" + given_as[name] + "' and '" + kv.first + "' both set " +
                                  id + "'s option '" + name +
                                  "' (one is EnvPool's name for it): give one");
    }
    given[name] = kv.second;
  }

  Config config;
  config.Set("task_id", id);
  for (const auto& kv : task.fixed.values()) config.Set(kv.first, kv.second);
  for (const auto& d : options) {
    auto it = given.find(d.name);
    config.Set(d.name, ValidateOption(d, it == given.end() ? d.default_value : it->second));
  }

  std::int64_t num_envs = config.GetInt("num_envs");
  std::int64_t batch_size = config.GetInt("batch_size");
  if (batch_size == 0) batch_size = num_envs;
  if (batch_size > num_envs) {
    throw std::invalid_argument("batch_size (" + std::to_string(batch_size) +
                                ") must not exceed num_envs (" + std::to_string(num_envs) + ")");
  }
  config.Set("batch_size", batch_size);
  std::int64_t num_threads = config.GetInt("num_threads");
  if (num_threads == 0) {
    auto cores = static_cast<std::int64_t>(UsableCpus().size());
    num_threads = std::min(batch_size, cores);
  }
  config.Set("num_threads", num_threads);

  std::vector<std::int64_t> seeds = config.GetIntList("seed");
  if (seeds.size() == 1 && num_envs > 1) {
    std::int64_t base = seeds[0];
    seeds.resize(static_cast<std::size_t>(num_envs));
    for (std::int64_t i = 0; i < num_envs; ++i) seeds[static_cast<std::size_t>(i)] = base + i;
  } else if (static_cast<std::int64_t>(seeds.size()) != num_envs) {
    throw std::invalid_argument("seed must be an int or a sequence of num_envs (" +
                                std::to_string(num_envs) + ") ints, got " +
                                std::to_string(seeds.size()));
  }
  config.Set("seed", std::move(seeds));

  EnvSpec spec = task.make_spec(config);
  spec.config = std::move(config);
  return spec;
}

}  // namespace envpool_core
