#include "mujoco/render_options.h"

#include <cstdint>
#include <stdexcept>
#include <utility>
#include <vector>

#include "mujoco/pixel_observation_env.h"
#include "mujoco/state_stack_env.h"

namespace envpool_core::mujoco {

namespace {

// Cap on frame sides: far above any use, and within every OpenGL's renderbuffer limit.
constexpr int kMaxRenderSide = 4096;

// `state` as frame_stack of them, oldest first: (stack, *shape), the same bounds.
void StackStateSpec(int stack, ArraySpec* state) {
  if (stack == 1) return;
  state->shape.insert(state->shape.begin(), stack);
  if (state->low.size() > 1) {  // per-element bounds: the same for every state of the stack
    std::vector<double> low, high;
    for (int s = 0; s < stack; ++s) {
      low.insert(low.end(), state->low.begin(), state->low.end());
      high.insert(high.end(), state->high.begin(), state->high.end());
    }
    state->low = std::move(low);
    state->high = std::move(high);
  }
}

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
      "frame_stack", 1,
      "the last frame_stack observations, oldest first: frames with from_pixels, else each "
      "state array (frame_stack x its shape)",
      1, 64));
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
    for (ArraySpec& state : spec->obs) StackStateSpec(stack, &state);
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
  auto stack = static_cast<int>(c.GetInt("frame_stack"));
  if (!c.GetBool("from_pixels")) {
    if (stack == 1) return env;
    return std::make_unique<StateStackEnv>(std::move(env), state_obs_bytes,
                                           static_cast<int>(spec.info.size()), stack);
  }
  return std::make_unique<PixelObservationEnv>(
      std::move(env), state_obs_bytes, static_cast<int>(spec.info.size()),
      static_cast<int>(c.GetInt("render_width")), static_cast<int>(c.GetInt("render_height")),
      stack);
}

}  // namespace envpool_core::mujoco
