#include "dm_control/suite_task.h"

#include <stdexcept>
#include <utility>

#include "mujoco/model_cache.h"
#include "mujoco/render_options.h"

namespace envpool_core::dm_control {

namespace {

const mujoco::RenderDefaults kSuiteRender{
    320, 240, "dm_control's physics.render default",
    "MuJoCo's default free camera (dm_control's default)", "pixels"};

std::string CamelCase(const std::string& snake) {
  std::string out;
  bool upper = true;
  for (char c : snake) {
    if (c == '_') {
      upper = true;
      continue;
    }
    out += upper ? static_cast<char>(std::toupper(static_cast<unsigned char>(c))) : c;
    upper = false;
  }
  return out;
}

}  // namespace

std::string SuiteTaskId(const std::string& domain, const std::string& task) {
  return CamelCase(domain) + CamelCase(task) + "-v1";
}

void AddSuiteTask(TaskRegistry& registry, const std::string& suite_dir, SuiteTaskDef def,
                  EditXmlFn edit_xml) {
  TaskDef task;
  task.id = SuiteTaskId(def.domain, def.task);
  task.options.push_back(
      OptionDef::Int("max_episode_steps", 1000, "steps before truncation", 1));
  task.options.push_back(OptionDef::Int(
      "frame_skip", def.frame_skip,
      "MuJoCo steps per env step (dm_control's n_sub_steps for the domain)", 1, 1 << 20));
  task.options.push_back(OptionDef::Bool(
      "reset_state_in_info", false,
      "add info 'qpos0'/'qvel0': the qpos/qvel the current episode started from (as the task "
      "drew them, before cheetah's settling steps), e.g. to copy into dm_control's physics"));
  mujoco::AddRenderOptions(kSuiteRender, &task.options);
  task.fixed.Set("task_name", def.task);
  std::string path = mujoco::ResolveXmlPath(suite_dir, def.domain + ".xml");
  std::function<SuiteModel()> load = [path] { return LoadSuiteModel(path); };
  if (edit_xml) {
    std::string key = path + " as built for " + task.id;
    load = [key, path, suite_dir, asset_dir = def.asset_dir, edit = std::move(edit_xml)] {
      return LoadSuiteModelFromXml(
          key, [&] { return edit(ReadTextFile(path)); }, suite_dir, asset_dir);
    };
  }
  std::vector<ObsArray> obs = def.obs;
  std::vector<ObsArray> start_info = def.start_info;
  task.make_spec = [load, obs, start_info](const Config& c) {
    SuiteModel model = load();
    const mjModel& m = *model.model;
    EnvSpec spec;
    for (const ObsArray& o : obs) spec.obs.push_back(MakeArraySpec<double>(o.name, o.shape));
    // dm_control's action_spec: the ctrlrange, or +-mjMAXVAL where it is unlimited.
    std::vector<double> low, high;
    for (int i = 0; i < m.nu; ++i) {
      bool limited = m.actuator_ctrllimited[i] != 0;
      low.push_back(limited ? m.actuator_ctrlrange[2 * i] : -mjMAXVAL);
      high.push_back(limited ? m.actuator_ctrlrange[2 * i + 1] : mjMAXVAL);
    }
    spec.action = MakeArraySpec<double>("action", {static_cast<int>(m.nu)}, std::move(low),
                                        std::move(high));
    if (c.GetBool("reset_state_in_info")) {
      spec.info.push_back(MakeArraySpec<double>("qpos0", {static_cast<int>(m.nq)}));
      spec.info.push_back(MakeArraySpec<double>("qvel0", {static_cast<int>(m.nv)}));
      for (const ObsArray& o : start_info) {
        spec.info.push_back(MakeArraySpec<double>(o.name, o.shape));
      }
    }
    mujoco::SetRenderSpec(c, m, kSuiteRender, &spec);
    return spec;
  };
  auto make_env = std::move(def.make_env);
  task.make_env = [load, obs, make_env](const EnvSpec& spec, int, std::uint64_t seed) {
    std::unique_ptr<Env> env = make_env(spec, seed, load());
    if (!spec.config.GetBool("from_pixels") && spec.config.GetInt("frame_stack") == 1) {
      return env;
    }
    std::vector<std::size_t> state_bytes;
    for (const ObsArray& o : obs) {
      state_bytes.push_back(MakeArraySpec<double>(o.name, o.shape).NumBytes());
    }
    return mujoco::WithRenderOptions(std::move(env), spec, state_bytes);
  };
  registry.Add(std::move(task));
}

}  // namespace envpool_core::dm_control
