// The finger domain (dm_control/suite/finger.py): spin, and turn (easy, hard).
// Every observation is read from the model's sensors, as dm_control's. The
// tasks change the model (the hinge's damping, the target's place and size),
// so each env has a model of its own.
#include <cmath>
#include <stdexcept>

#include "dm_control/randomizers.h"
#include "dm_control/suite_env.h"
#include "dm_control/suite_task.h"
#include "mujoco/model_names.h"

namespace envpool_core::dm_control {

namespace {

constexpr double kSpinVelocity = 15.0;
constexpr int kMaxAttempts = 1000;

class FingerEnv final : public SuiteEnv {
 public:
  // target_radius 0: spin; else turn, to a target of that radius.
  FingerEnv(const EnvSpec& spec, std::uint64_t seed, SuiteModel model, double target_radius)
      : SuiteEnv(spec, seed, std::move(model), /*private_model=*/true),
        target_radius_(target_radius),
        hinge_(mujoco::NameId(model_, mjOBJ_JOINT, "hinge")),
        target_site_(mujoco::NameId(model_, mjOBJ_SITE, "target")),
        tip_site_(mujoco::NameId(model_, mjOBJ_SITE, "tip")),
        cap1_(mujoco::NameId(model_, mjOBJ_GEOM, "cap1")),
        proximal_(SensorAdr("proximal")),
        distal_(SensorAdr("distal")),
        proximal_velocity_(SensorAdr("proximal_velocity")),
        distal_velocity_(SensorAdr("distal_velocity")),
        hinge_velocity_(SensorAdr("hinge_velocity")),
        tip_(SensorAdr("tip")),
        target_(SensorAdr("target")),
        spinner_(SensorAdr("spinner")),
        touchtop_(SensorAdr("touchtop")),
        touchbottom_(SensorAdr("touchbottom")) {}

 private:
  // EnvPool's test-build info on turn: the target's angle.
  void WriteStartInfo(OutputRow& row, int first) const override {
    if (target_radius_ != 0.0) *row.Info<double>(first) = target_angle_;
  }

  void InitializeEpisode() override {
    if (target_radius_ == 0.0) {
      private_model_->site_rgba[4 * target_site_ + 3] = 0.0F;
      private_model_->site_rgba[4 * tip_site_ + 3] = 0.0F;
      private_model_->dof_damping[model_->jnt_dofadr[hinge_]] = 0.03;
    } else {
      double target_angle = random_.Uniform(-M_PI, M_PI);
      target_angle_ = target_angle;
      double hinge_x = data_->xanchor[3 * hinge_];
      double hinge_z = data_->xanchor[3 * hinge_ + 2];
      const double* cap1 = model_->geom_size + 3 * cap1_;
      double radius = cap1[0] + cap1[1] + cap1[2];
      private_model_->site_pos[3 * target_site_] = hinge_x + radius * std::sin(target_angle);
      private_model_->site_pos[3 * target_site_ + 2] = hinge_z + radius * std::cos(target_angle);
      private_model_->site_size[3 * target_site_] = target_radius_;
    }
    // Random joint angles until nothing touches.
    for (int attempt = 0;; ++attempt) {
      if (attempt == kMaxAttempts) {
        throw std::runtime_error("finger: no collision-free start state in 1000 attempts");
      }
      RandomizeLimitedAndRotationalJoints(model_, data_, &random_);
      ForwardWithoutActuation();
      if (data_->ncon == 0) break;
    }
  }

  double TipX() const { return data_->sensordata[tip_] - data_->sensordata[spinner_]; }
  double TipZ() const { return data_->sensordata[tip_ + 2] - data_->sensordata[spinner_ + 2]; }
  double TargetX() const { return data_->sensordata[target_] - data_->sensordata[spinner_]; }
  double TargetZ() const {
    return data_->sensordata[target_ + 2] - data_->sensordata[spinner_ + 2];
  }
  double DistToTarget() const {
    double to_target[2] = {TargetX() - TipX(), TargetZ() - TipZ()};
    return Norm(to_target, 2) - model_->site_size[3 * target_site_];
  }

  void WriteObservation(OutputRow& row) override {
    double* position = row.Obs<double>(0);
    position[0] = data_->sensordata[proximal_];
    position[1] = data_->sensordata[distal_];
    position[2] = TipX();
    position[3] = TipZ();
    double* velocity = row.Obs<double>(1);
    velocity[0] = data_->sensordata[proximal_velocity_];
    velocity[1] = data_->sensordata[distal_velocity_];
    velocity[2] = data_->sensordata[hinge_velocity_];
    double* touch = row.Obs<double>(2);
    touch[0] = std::log1p(data_->sensordata[touchtop_]);
    touch[1] = std::log1p(data_->sensordata[touchbottom_]);
    // Spin has no target: zeros there, as EnvPool's (rows are reused: written every step).
    bool turn = target_radius_ != 0.0;
    double* target_position = row.Obs<double>(3);
    target_position[0] = turn ? TargetX() : 0.0;
    target_position[1] = turn ? TargetZ() : 0.0;
    *row.Obs<double>(4) = turn ? DistToTarget() : 0.0;
  }

  double Reward() override {
    if (target_radius_ == 0.0) {
      return data_->sensordata[hinge_velocity_] <= -kSpinVelocity ? 1.0 : 0.0;
    }
    return DistToTarget() <= 0.0 ? 1.0 : 0.0;
  }

  double target_radius_;
  double target_angle_ = 0.0;  // turn: this episode's target angle
  int hinge_, target_site_, tip_site_, cap1_;
  int proximal_, distal_, proximal_velocity_, distal_velocity_, hinge_velocity_;
  int tip_, target_, spinner_, touchtop_, touchbottom_;
};

}  // namespace

void RegisterFinger(TaskRegistry& registry, const std::string& suite_dir) {
  // Control timestep 0.02 s over the model's 0.01 s. EnvPool gives every task of
  // the domain turn's observation (spin's target keys are zeros).
  std::vector<ObsArray> obs = {{"position", {4}},        {"velocity", {3}},
                               {"touch", {2}},           {"target_position", {2}},
                               {"dist_to_target", {}}};
  for (auto [name, radius] :
       {std::pair{"spin", 0.0}, std::pair{"turn_easy", 0.07}, std::pair{"turn_hard", 0.03}}) {
    AddSuiteTask(registry, suite_dir,
                 {"finger", name, 2, obs, SuiteEnvFactory<FingerEnv>(radius), "",
                  radius == 0.0 ? std::vector<ObsArray>{} : std::vector<ObsArray>{{"target", {1}}}});
  }
}

}  // namespace envpool_core::dm_control
