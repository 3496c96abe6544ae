#include "mujoco/render_options.h"

#include <cstdint>
#include <stdexcept>
#include <utility>

#include "mujoco/pixel_observation_env.h"

namespace envpool_core::mujoco {

namespace {

// Cap on frame sides: far above any use, and within every OpenGL's renderbuffer limit.
constexpr int kMaxRenderSide = 4096;

}  // namespace

void AddRenderOptions(const RenderDefaults& defaults, std::vector<OptionDef>* options) {
  for (bool width : {true, false}) {
    const char* side = width ? "width" : "height";
    options->push_back(OptionDef::Int(
        std::string("render_") + side, width ? defaults.width : defaults.height,
        std::string(side) + " of the frames render() returns and, with from_pixels, of the " +
            "observation (" + defaults.size_source + "; from_pixels alone makes it 84)",
        1, kMaxRenderSide));
  }
  options->push_back(OptionDef::Int(
      "render_camera_id", -1,
      "-1: " + defaults.free_camera + "; k >= 0: the model's camera k", -1));
  options->push_back(OptionDef::Bool(
      "from_pixels", false,
      "the observation is '" + defaults.pixels_name +
          "', the rendered RGB frame (uint8, channel first: 3 * frame_stack x render_height x "
          "render_width), instead of the state"));
  options->push_back(OptionDef::Int(
      "frame_stack", 1, "with from_pixels: the last frame_stack frames, oldest first", 1, 64));
}

void SetRenderSpec(const Config& c, const mjModel& m, const RenderDefaults& defaults,
                   EnvSpec* spec) {
  auto camera = c.GetInt("render_camera_id");
  if (camera >= m.ncam) {
    throw std::invalid_argument(
        "render_camera_id " + std::to_string(camera) + " is out of range: the model has " +
        std::to_string(m.ncam) + " cameras (-1 is the default free camera" +
        (m.ncam > 0 ? ", 0.." + std::to_string(m.ncam - 1) + " its cameras)" : ")"));
  }
  auto width = static_cast<int>(c.GetInt("render_width"));
  auto height = static_cast<int>(c.GetInt("render_height"));
  spec->render_shape = {height, width};
  spec->render_fps = 1.0 / (m.opt.timestep * static_cast<double>(c.GetInt("frame_skip")));
  auto stack = static_cast<int>(c.GetInt("frame_stack"));
  if (!c.GetBool("from_pixels")) {
    if (stack != 1) {
      throw std::invalid_argument("frame_stack=" + std::to_string(stack) +
                                  " stacks rendered frames: it needs from_pixels=True");
    }
    return;
  }
  spec->obs = {MakeArraySpec<std::uint8_t>(defaults.pixels_name, {3 * stack, height, width},
                                           {0.0}, {255.0})};
  // Each stepping thread keeps an OpenGL context: the pool's workers only.
  spec->steps_on_workers_only = true;
}

std::unique_ptr<Env> WithRenderOptions(std::unique_ptr<Env> env, const EnvSpec& spec,
                                       const std::vector<std::size_t>& state_obs_bytes) {
  const Config& c = spec.config;
  if (!c.GetBool("from_pixels")) return env;
  return std::make_unique<PixelObservationEnv>(
      std::move(env), state_obs_bytes, static_cast<int>(spec.info.size()),
      static_cast<int>(c.GetInt("render_width")), static_cast<int>(c.GetInt("render_height")),
      static_cast<int>(c.GetInt("frame_stack")));
}

}  // namespace envpool_core::mujoco
