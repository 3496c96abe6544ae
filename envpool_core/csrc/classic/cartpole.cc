#include "classic/cartpole.h"

#include <string>

#include <array>
#include <cmath>
#include <limits>

#include "classic/classic_canvas.h"
#include "classic/classic_task.h"
#include "classic/state_info.h"

namespace envpool_core::classic {

namespace {
constexpr double kGravity = 9.8;
constexpr double kMassCart = 1.0;
constexpr double kMassPole = 0.1;
constexpr double kTotalMass = kMassCart + kMassPole;
constexpr double kLength = 0.5;  // half the pole's length
constexpr double kPoleMassLength = kMassPole * kLength;
constexpr double kForceMag = 10.0;
constexpr double kTau = 0.02;
const double kThetaThreshold = 12 * 2 * M_PI / 360;
constexpr double kXThreshold = 2.4;
// gymnasium's picture: a 600 x 400 frame, 50 frames per second.
constexpr int kScreenWidth = 600;
constexpr int kScreenHeight = 400;
constexpr double kRenderFps = 50.0;
}  // namespace

CartPoleEnv::CartPoleEnv(const EnvSpec& spec, std::uint64_t seed)
    : ClassicEnv(seed),
      state_in_info_(spec.config.GetBool("state_in_info")) {}

EnvSpec CartPoleEnv::MakeSpec(const Config& config) {
  double inf = std::numeric_limits<double>::infinity();
  double hi_x = kXThreshold * 2;
  double hi_theta = static_cast<float>(kThetaThreshold * 2);
  EnvSpec spec;
  spec.obs.push_back(
      MakeArraySpec<float>("obs", {4}, {-hi_x, -inf, -hi_theta, -inf}, {hi_x, inf, hi_theta, inf}));
  AddStateInfo(config, 4, &spec);
  spec.render_shape = {kScreenHeight, kScreenWidth};
  spec.render_fps = kRenderFps;
  spec.action = DiscreteActionSpec(2);
  return spec;
}

bool CartPoleEnv::Reset(OutputRow& row) {
  std::uniform_real_distribution<double> dist(-0.05, 0.05);
  for (double& s : state_) s = dist(rng_);
  WriteObs(row);
  return true;
}

void CartPoleEnv::Step(const void* action, OutputRow& row) {
  int a = *static_cast<const std::int32_t*>(action);
  auto& [x, x_dot, theta, theta_dot] = state_;
  double force = a == 1 ? kForceMag : -kForceMag;
  double costheta = std::cos(theta);
  double sintheta = std::sin(theta);
  // Grouped as gymnasium's np.square(...) so that every product rounds alike.
  double temp = (force + kPoleMassLength * (theta_dot * theta_dot) * sintheta) / kTotalMass;
  double thetaacc = (kGravity * sintheta - costheta * temp) /
                    (kLength * (4.0 / 3.0 - kMassPole * (costheta * costheta) / kTotalMass));
  double xacc = temp - kPoleMassLength * thetaacc * costheta / kTotalMass;
  x = x + kTau * x_dot;
  x_dot = x_dot + kTau * xacc;
  theta = theta + kTau * theta_dot;
  theta_dot = theta_dot + kTau * thetaacc;
  row.terminated = x < -kXThreshold || x > kXThreshold || theta < -kThetaThreshold ||
                   theta > kThetaThreshold;
  row.reward = 1.0F;
  WriteObs(row);
}

void CartPoleEnv::WriteObs(OutputRow& row) const {
  float* obs = row.Obs<float>();
  for (int i = 0; i < 4; ++i) obs[i] = static_cast<float>(state_[i]);
  if (state_in_info_) WriteStateInfo(row, state_.data(), 4);
}

void CartPoleEnv::Render(std::uint8_t* rgb) {
  // gymnasium's CartPoleEnv.render, shape for shape.
  constexpr double kScale = kScreenWidth / (kXThreshold * 2);
  constexpr double kPoleWidth = 10.0;
  constexpr double kPoleLen = kScale * (2 * kLength);
  constexpr double kCartWidth = 50.0;
  constexpr double kCartHeight = 30.0;
  constexpr double kAxleOffset = kCartHeight / 4.0;
  constexpr int kCartY = 100;  // the top of the track
  ClassicCanvas canvas(rgb, kScreenHeight, kScreenWidth);
  canvas.Fill({255, 255, 255});

  const double cartx = state_[0] * kScale + kScreenWidth / 2.0;
  const std::array<Point, 4> cart = {Point{cartx - kCartWidth / 2, kCartY - kCartHeight / 2},
                                     Point{cartx - kCartWidth / 2, kCartY + kCartHeight / 2},
                                     Point{cartx + kCartWidth / 2, kCartY + kCartHeight / 2},
                                     Point{cartx + kCartWidth / 2, kCartY - kCartHeight / 2}};
  canvas.AaPolygon(cart, {0, 0, 0});
  canvas.FilledPolygon(cart, {0, 0, 0});

  const double l = -kPoleWidth / 2;
  const double r = kPoleWidth / 2;
  const double t = kPoleLen - kPoleWidth / 2;
  const double b = -kPoleWidth / 2;
  const std::array<Point, 4> corners = {Point{l, b}, Point{l, t}, Point{r, t}, Point{r, b}};
  std::array<Point, 4> pole{};
  for (int i = 0; i < 4; ++i) {
    Point c = Rotated(corners[i], -state_[2]);
    pole[i] = {c.x + cartx, c.y + kCartY + kAxleOffset};
  }
  canvas.AaPolygon(pole, {202, 152, 101});
  canvas.FilledPolygon(pole, {202, 152, 101});

  const int axle_x = static_cast<int>(cartx);
  const int axle_y = static_cast<int>(kCartY + kAxleOffset);
  const int axle_radius = static_cast<int>(kPoleWidth / 2);
  canvas.AaCircle(axle_x, axle_y, axle_radius, {129, 132, 203});
  canvas.FilledCircle(axle_x, axle_y, axle_radius, {129, 132, 203});

  canvas.HLine(0, kScreenWidth, kCartY, {0, 0, 0});
}

void RegisterCartPole(TaskRegistry& registry) {
  // EnvPool also registers each under gymnasium's functional-env id, phys2d/CartPole-v*.
  for (const char* prefix : {"", "phys2d/"}) {
    AddClassicTask<CartPoleEnv>(registry, std::string(prefix) + "CartPole-v0", 200);
    AddClassicTask<CartPoleEnv>(registry, std::string(prefix) + "CartPole-v1", 500);
  }
}

}  // namespace envpool_core::classic
