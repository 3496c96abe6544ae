#include "dm_control/suite_task.h"

#include <stdexcept>
#include <utility>

#include "mujoco/model_cache.h"
#include "mujoco/pixel_observation_env.h"

namespace envpool_core::dm_control {

namespace {

constexpr int kMaxRenderSide = 4096;  // as the MuJoCo family's

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

void AddRenderOptions(std::vector<OptionDef>* options) {
  options->push_back(OptionDef::Int(
      "render_width", 320,
      "width of the frames render() returns and, with from_pixels, of the observation "
      "(dm_control's physics.render default; from_pixels alone makes it 84)",
      1, kMaxRenderSide));
  options->push_back(OptionDef::Int(
      "render_height", 240,
      "height of the frames render() returns and, with from_pixels, of the observation "
      "(dm_control's physics.render default; from_pixels alone makes it 84)",
      1, kMaxRenderSide));
  options->push_back(OptionDef::Int(
      "render_camera_id", -1,
      "-1: MuJoCo's default free camera (dm_control's default); k >= 0: the model's camera k",
      -1));
  options->push_back(OptionDef::Bool(
      "from_pixels", false,
      "the observation is 'pixels', the rendered RGB frame (uint8, channel first: "
      "3 * frame_stack x render_height x render_width), instead of the state arrays"));
  options->push_back(OptionDef::Int(
      "frame_stack", 1, "with from_pixels: the last frame_stack frames, oldest first", 1, 64));
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
  AddRenderOptions(&task.options);
  task.fixed.Set("task_name", def.task);
  std::string path = mujoco::ResolveXmlPath(suite_dir, def.domain + ".xml");
  std::function<SuiteModel()> load = [path] { return LoadSuiteModel(path); };
  if (edit_xml) {
    std::string key = path + " as built for " + task.id;
    load = [key, path, suite_dir, edit = std::move(edit_xml)] {
      return LoadSuiteModelFromXml(
          key, [&] { return edit(ReadTextFile(path)); }, suite_dir);
    };
  }
  std::vector<ObsArray> obs = def.obs;
  task.make_spec = [load, obs](const Config& c) {
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
    auto camera = c.GetInt("render_camera_id");
    if (camera >= m.ncam) {
      throw std::invalid_argument(
          "render_camera_id " + std::to_string(camera) + " is out of range: the model has " +
          std::to_string(m.ncam) + " cameras (-1 is the free camera" +
          (m.ncam > 0 ? ", 0.." + std::to_string(m.ncam - 1) + " its cameras)" : ")"));
    }
    auto width = static_cast<int>(c.GetInt("render_width"));
    auto height = static_cast<int>(c.GetInt("render_height"));
    spec.render_shape = {height, width};
    spec.render_fps = 1.0 / (m.opt.timestep * static_cast<double>(c.GetInt("frame_skip")));
    auto stack = static_cast<int>(c.GetInt("frame_stack"));
    if (!c.GetBool("from_pixels")) {
      if (stack != 1) {
        throw std::invalid_argument("frame_stack=" + std::to_string(stack) +
                                    " stacks rendered frames: it needs from_pixels=True");
      }
      return spec;
    }
    spec.obs = {
        MakeArraySpec<std::uint8_t>("pixels", {3 * stack, height, width}, {0.0}, {255.0})};
    spec.steps_on_workers_only = true;  // each stepping thread keeps an OpenGL context
    return spec;
  };
  auto make_env = std::move(def.make_env);
  task.make_env = [load, obs, make_env](const EnvSpec& spec, int, std::uint64_t seed) {
    std::unique_ptr<Env> env = make_env(spec, seed, load());
    const Config& c = spec.config;
    if (!c.GetBool("from_pixels")) return env;
    std::vector<std::size_t> state_bytes;
    for (const ObsArray& o : obs) state_bytes.push_back(MakeArraySpec<double>(o.name, o.shape).NumBytes());
    return std::unique_ptr<Env>(std::make_unique<mujoco::PixelObservationEnv>(
        std::move(env), state_bytes, static_cast<int>(spec.info.size()),
        static_cast<int>(c.GetInt("render_width")), static_cast<int>(c.GetInt("render_height")),
        static_cast<int>(c.GetInt("frame_stack"))));
  };
  registry.Add(std::move(task));
}

}  // namespace envpool_core::dm_control
