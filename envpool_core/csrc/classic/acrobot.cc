#include "classic/acrobot.h"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "classic/classic_canvas.h"
#include "classic/classic_task.h"
#include "classic/py_math.h"
#include "classic/state_info.h"

namespace envpool_core::classic {

namespace {
constexpr double kPi = std::numbers::pi;
constexpr double kDt = 0.2;
constexpr double kLinkLength1 = 1.0;
constexpr double kLinkLength2 = 1.0;
// gymnasium's picture: a 500 x 500 frame, 15 frames per second.
constexpr int kScreenDim = 500;
constexpr double kRenderFps = 15.0;
constexpr double kLinkMass1 = 1.0;
constexpr double kLinkMass2 = 1.0;
constexpr double kLinkComPos1 = 0.5;
constexpr double kLinkComPos2 = 0.5;
constexpr double kLinkMoi = 1.0;
constexpr double kGravity = 9.8;
constexpr double kMaxVel1 = 4 * kPi;
constexpr double kMaxVel2 = 9 * kPi;
constexpr std::array<double, 3> kAvailTorque = {-1.0, 0.0, 1.0};

// gymnasium's wrap(): shifts x by whole turns into [m, M].
double Wrap(double x, double m, double big_m) {
  double diff = big_m - m;
  while (x > big_m) x = x - diff;
  while (x < m) x = x + diff;
  return x;
}

// gymnasium's bound(): min(max(x, m), M), which is what std::min/max compute.
double Bound(double x, double m, double big_m) { return std::min(std::max(x, m), big_m); }
}  // namespace

AcrobotEnv::AcrobotEnv(const EnvSpec& spec, std::uint64_t seed)
    : ClassicEnv(seed),
      torque_noise_max_(spec.config.GetFloat("torque_noise_max")),
      state_in_info_(spec.config.GetBool("state_in_info")) {}

EnvSpec AcrobotEnv::MakeSpec(const Config& config) {
  EnvSpec spec;
  spec.obs.push_back(MakeArraySpec<float>("obs", {6}, {-1.0, -1.0, -1.0, -1.0, -kMaxVel1, -kMaxVel2},
                                          {1.0, 1.0, 1.0, 1.0, kMaxVel1, kMaxVel2}));
  if (config.GetBool("state_in_info")) {
    AddStateInfo(config, 4, &spec);
  } else {
    // EnvPool's Acrobot always gives its two angles, float32, as info["state"] (clients and
    // EnvPool's tests read them); state_in_info replaces them with the whole float64 state.
    spec.info.push_back(MakeArraySpec<float>("state", {2}));
  }
  spec.render_shape = {kScreenDim, kScreenDim};
  spec.render_fps = kRenderFps;
  spec.action = DiscreteActionSpec(3);
  return spec;
}

bool AcrobotEnv::Reset(OutputRow& row) {
  // gymnasium draws float64 values and stores them .astype(np.float32).
  std::uniform_real_distribution<double> dist(-0.1, 0.1);
  for (double& s : state_) s = static_cast<float>(dist(rng_));
  WriteObs(row);
  return true;
}

// The "book" equations of motion. Python evaluates `x**2` with libm pow
// (PyPow2) and left to right; the expressions keep its order and its
// constants so that every intermediate value rounds the same way.
AcrobotEnv::Augmented AcrobotEnv::Dsdt(const Augmented& s) {
  constexpr double m1 = kLinkMass1;
  constexpr double m2 = kLinkMass2;
  constexpr double l1 = kLinkLength1;
  constexpr double lc1 = kLinkComPos1;
  constexpr double lc2 = kLinkComPos2;
  constexpr double i1 = kLinkMoi;
  constexpr double i2 = kLinkMoi;
  constexpr double g = kGravity;
  const auto& [theta1, theta2, dtheta1, dtheta2, a] = s;
  double d1 = m1 * PyPow2(lc1) + m2 * (PyPow2(l1) + PyPow2(lc2) + 2 * l1 * lc2 * std::cos(theta2)) +
              i1 + i2;
  double d2 = m2 * (PyPow2(lc2) + l1 * lc2 * std::cos(theta2)) + i2;
  double phi2 = m2 * lc2 * g * std::cos(theta1 + theta2 - kPi / 2.0);
  double phi1 = -m2 * l1 * lc2 * PyPow2(dtheta2) * std::sin(theta2) -
                2 * m2 * l1 * lc2 * dtheta2 * dtheta1 * std::sin(theta2) +
                (m1 * lc1 + m2 * l1) * g * std::cos(theta1 - kPi / 2) + phi2;
  double ddtheta2 =
      (a + d2 / d1 * phi1 - m2 * l1 * lc2 * PyPow2(dtheta1) * std::sin(theta2) - phi2) /
      (m2 * PyPow2(lc2) + i2 - PyPow2(d2) / d1);
  double ddtheta1 = -(d2 * ddtheta2 + phi1) / d1;
  return {dtheta1, dtheta2, ddtheta1, ddtheta2, 0.0};
}

void AcrobotEnv::Step(const void* action, OutputRow& row) {
  // The Python layer rejects actions outside [0, 2]; clamping keeps a bad
  // action from a direct C++ caller from indexing out of bounds.
  int a = std::clamp(*static_cast<const std::int32_t*>(action), 0, 2);
  double torque = kAvailTorque[static_cast<std::size_t>(a)];
  if (torque_noise_max_ > 0) {
    torque += std::uniform_real_distribution<double>(-torque_noise_max_, torque_noise_max_)(rng_);
  }

  // gymnasium's rk4(derivs, y0, [0, dt]): a single classic Runge-Kutta step.
  const Augmented y0 = {state_[0], state_[1], state_[2], state_[3], torque};
  constexpr double dt = kDt;  // t[1] - t[0]
  constexpr double dt2 = dt / 2.0;
  auto shifted = [&y0](double h, const Augmented& k) {
    Augmented y;
    for (std::size_t i = 0; i < y.size(); ++i) y[i] = y0[i] + h * k[i];
    return y;
  };
  Augmented k1 = Dsdt(y0);
  Augmented k2 = Dsdt(shifted(dt2, k1));
  Augmented k3 = Dsdt(shifted(dt2, k2));
  Augmented k4 = Dsdt(shifted(dt, k3));
  for (std::size_t i = 0; i < state_.size(); ++i) {
    state_[i] = y0[i] + dt / 6.0 * (k1[i] + 2 * k2[i] + 2 * k3[i] + k4[i]);
  }

  state_[0] = Wrap(state_[0], -kPi, kPi);
  state_[1] = Wrap(state_[1], -kPi, kPi);
  state_[2] = Bound(state_[2], -kMaxVel1, kMaxVel1);
  state_[3] = Bound(state_[3], -kMaxVel2, kMaxVel2);
  // The free end is more than one link length above the pivot.
  row.terminated = -std::cos(state_[0]) - std::cos(state_[1] + state_[0]) > 1.0;
  row.reward = row.terminated ? 0.0F : -1.0F;
  WriteObs(row);
}

void AcrobotEnv::WriteObs(OutputRow& row) const {
  float* obs = row.Obs<float>();
  obs[0] = static_cast<float>(std::cos(state_[0]));
  obs[1] = static_cast<float>(std::sin(state_[0]));
  obs[2] = static_cast<float>(std::cos(state_[1]));
  obs[3] = static_cast<float>(std::sin(state_[1]));
  obs[4] = static_cast<float>(state_[2]);
  obs[5] = static_cast<float>(state_[3]);
  if (state_in_info_) {
    WriteStateInfo(row, state_.data(), 4);
  } else {
    float* angles = row.Info<float>(0);
    angles[0] = static_cast<float>(state_[0]);
    angles[1] = static_cast<float>(state_[1]);
  }
}

void AcrobotEnv::Render(std::uint8_t* rgb) {
  // gymnasium's AcrobotEnv.render, shape for shape.
  constexpr double kBound = kLinkLength1 + kLinkLength2 + 0.2;
  constexpr double kScale = kScreenDim / (kBound * 2);
  constexpr double kOffset = kScreenDim / 2.0;
  ClassicCanvas canvas(rgb, kScreenDim, kScreenDim);
  canvas.Fill({255, 255, 255});

  const double theta1 = state_[0];
  const double theta2 = state_[1];
  // The joints, as gymnasium's xys = [[0, 0], p1][:, ::-1].
  const std::array<Point, 2> joints = {
      Point{0, 0}, Point{kLinkLength1 * std::sin(theta1) * kScale,
                         -kLinkLength1 * std::cos(theta1) * kScale}};
  const std::array<double, 2> thetas = {theta1 - kPi / 2, theta1 + theta2 - kPi / 2};
  const std::array<double, 2> lengths = {kLinkLength1 * kScale, kLinkLength2 * kScale};

  canvas.Line({-2.2 * kScale + kOffset, 1 * kScale + kOffset},
              {2.2 * kScale + kOffset, 1 * kScale + kOffset}, {0, 0, 0});

  for (int link = 0; link < 2; ++link) {
    const double x = joints[link].x + kOffset;
    const double y = joints[link].y + kOffset;
    const double l = 0;
    const double r = lengths[link];
    const double t = 0.1 * kScale;
    const double b = -0.1 * kScale;
    const std::array<Point, 4> corners = {Point{l, b}, Point{l, t}, Point{r, t}, Point{r, b}};
    std::array<Point, 4> body{};
    for (int i = 0; i < 4; ++i) {
      Point c = Rotated(corners[i], thetas[link]);
      body[i] = {c.x + x, c.y + y};
    }
    canvas.AaPolygon(body, {0, 204, 204});
    canvas.FilledPolygon(body, {0, 204, 204});
    const int joint_radius = static_cast<int>(0.1 * kScale);
    canvas.AaCircle(static_cast<int>(x), static_cast<int>(y), joint_radius, {204, 204, 0});
    canvas.FilledCircle(static_cast<int>(x), static_cast<int>(y), joint_radius, {204, 204, 0});
  }
}

void RegisterAcrobot(TaskRegistry& registry) {
  AddClassicTask<AcrobotEnv>(
      registry, "Acrobot-v1", 500,
      {OptionDef::Float("torque_noise_max", 0.0,
                        "uniform noise added to the torque, as gymnasium's attribute", 0.0)});
}

}  // namespace envpool_core::classic
