#include "classic/pendulum.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <numbers>
#include <utility>

#include "classic/classic_canvas.h"
#include "classic/classic_task.h"
#include "classic/py_math.h"
#include "classic/state_info.h"

namespace envpool_core::classic {

namespace {
constexpr double kMaxSpeed = 8;
constexpr double kMaxTorque = 2.0;
constexpr double kDt = 0.05;
constexpr double kM = 1.0;
constexpr double kL = 1.0;
constexpr double kPi = std::numbers::pi;
// gymnasium's picture: a 500 x 500 frame, 30 frames per second.
constexpr int kScreenDim = 500;
constexpr double kRenderFps = 30.0;
constexpr double kBound = 2.2;
constexpr double kScale = kScreenDim / (kBound * 2);  // pixels per metre
constexpr int kOffset = kScreenDim / 2;               // the pivot

// ((x + pi) % (2 * pi)) - pi with NumPy's modulo: the angle in [-pi, pi).
double AngleNormalize(double x) { return PyMod(x + kPi, 2 * kPi) - kPi; }
}  // namespace

PendulumEnv::PendulumEnv(const EnvSpec& spec, std::uint64_t seed)
    : ClassicEnv(seed),
      g_(spec.config.GetFloat("g")),
      clip_before_move_(spec.config.GetInt("version") == 1),
      state_in_info_(spec.config.GetBool("state_in_info")),
      arrow_(PendulumArrow::Loaded()) {}

EnvSpec PendulumEnv::MakeSpec(const Config& config) {
  EnvSpec spec;
  spec.obs.push_back(
      MakeArraySpec<float>("obs", {3}, {-1.0, -1.0, -kMaxSpeed}, {1.0, 1.0, kMaxSpeed}));
  AddStateInfo(config, 2, &spec);
  spec.render_shape = {kScreenDim, kScreenDim};
  spec.render_fps = kRenderFps;
  spec.action = MakeArraySpec<float>("action", {1}, {-kMaxTorque}, {kMaxTorque});
  return spec;
}

bool PendulumEnv::Reset(OutputRow& row) {
  // gymnasium: uniform(low=-high, high=high) with high = [pi, 1].
  state_[0] = std::uniform_real_distribution<double>(-kPi, kPi)(rng_);
  state_[1] = std::uniform_real_distribution<double>(-1.0, 1.0)(rng_);
  has_last_u_ = false;
  WriteObs(row);
  return true;
}

void PendulumEnv::Step(const void* action, OutputRow& row) {
  auto& [th, thdot] = state_;
  // Out-of-range torques are clipped here, as gymnasium does (the action space
  // is only advisory for continuous actions). np.clip keeps the float32 dtype,
  // so the torque terms below are float32 arithmetic (NEP 50), and a NaN
  // passes through like it does in NumPy.
  float u = std::clamp(*static_cast<const float*>(action), F32(-kMaxTorque), F32(kMaxTorque));
  last_u_ = u;
  has_last_u_ = true;
  double costs = PyPow2(AngleNormalize(th)) + 0.1 * PyPow2(thdot) +
                 static_cast<double>(F32(0.001) * PyPow2(u));
  // 3.0 / (m * l**2) is a Python float, so its product with u is float32.
  float torque_term = F32(3.0 / (kM * PyPow2(kL))) * u;
  double newthdot =
      thdot + (3 * g_ / (2 * kL) * std::sin(th) + static_cast<double>(torque_term)) * kDt;
  double clipped = std::clamp(newthdot, -kMaxSpeed, kMaxSpeed);
  th = th + (clip_before_move_ ? clipped : newthdot) * kDt;
  thdot = clipped;
  row.reward = static_cast<float>(-costs);
  WriteObs(row);
}

void PendulumEnv::WriteObs(OutputRow& row) const {
  float* obs = row.Obs<float>();
  obs[0] = static_cast<float>(std::cos(state_[0]));
  obs[1] = static_cast<float>(std::sin(state_[0]));
  obs[2] = static_cast<float>(state_[1]);
  if (state_in_info_) WriteStateInfo(row, state_.data(), 2);
}

void PendulumEnv::Render(std::uint8_t* rgb) {
  // gymnasium's PendulumEnv.render, shape for shape.
  constexpr double kRodLength = 1 * kScale;
  constexpr double kRodWidth = 0.2 * kScale;
  constexpr Rgb kRodColor = {204, 77, 77};
  ClassicCanvas canvas(rgb, kScreenDim, kScreenDim);
  canvas.Fill({255, 255, 255});

  const double angle = state_[0] + kPi / 2;
  const std::array<Point, 4> corners = {Point{0, -kRodWidth / 2}, Point{0, kRodWidth / 2},
                                        Point{kRodLength, kRodWidth / 2},
                                        Point{kRodLength, -kRodWidth / 2}};
  std::array<Point, 4> rod{};
  for (int i = 0; i < 4; ++i) {
    Point c = Rotated(corners[i], angle);
    rod[i] = {c.x + kOffset, c.y + kOffset};
  }
  canvas.AaPolygon(rod, kRodColor);
  canvas.FilledPolygon(rod, kRodColor);

  const int end_radius = static_cast<int>(kRodWidth / 2);
  canvas.AaCircle(kOffset, kOffset, end_radius, kRodColor);
  canvas.FilledCircle(kOffset, kOffset, end_radius, kRodColor);
  Point end = Rotated({kRodLength, 0}, angle);
  const int end_x = static_cast<int>(end.x + kOffset);
  const int end_y = static_cast<int>(end.y + kOffset);
  canvas.AaCircle(end_x, end_y, end_radius, kRodColor);
  canvas.FilledCircle(end_x, end_y, end_radius, kRodColor);

  if (arrow_ != nullptr && has_last_u_) arrow_->Draw(canvas, kOffset, last_u_);

  const int axle_radius = static_cast<int>(0.05 * kScale);
  canvas.AaCircle(kOffset, kOffset, axle_radius, {0, 0, 0});
  canvas.FilledCircle(kOffset, kOffset, axle_radius, {0, 0, 0});
}

void RegisterPendulum(TaskRegistry& registry) {
  // EnvPool's ids and its `version` option: 0 is gym's Pendulum-v0 order of the update.
  for (const auto& [id, version] : {std::pair<const char*, int>{"Pendulum-v0", 0},
                                    {"phys2d/Pendulum-v0", 0},
                                    {"Pendulum-v1", 1}}) {
    AddClassicTask<PendulumEnv>(
        registry, id, 200,
        {OptionDef::Float("g", 10.0, "acceleration of gravity (m/s^2), as gymnasium's `g`"),
         OptionDef::Int("version", version,
                        "1: the angle moves by the clipped velocity (gymnasium's v1); 0: by "
                        "the velocity before the clip (gym's v0)",
                        0, 1)});
  }
}

void LoadPendulumArrow(const std::string& assets_dir) {
  PendulumArrow::Load(assets_dir, kScale, kMaxTorque);
}

}  // namespace envpool_core::classic
