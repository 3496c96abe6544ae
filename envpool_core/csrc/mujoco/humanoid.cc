// Humanoid-v4 / Humanoid-v5 (gymnasium/envs/mujoco/humanoid_v4.py, humanoid_v5.py).
#include <limits>

#include "mujoco/mujoco_env.h"

namespace envpool_core::mujoco {

namespace {

enum V4Info { kV4RewardLinvel, kV4RewardQuadctrl, kV4RewardAlive, kV4XPosition, kV4YPosition,
              kV4DistanceFromOrigin, kV4XVelocity, kV4YVelocity, kV4ForwardReward, kV4NumInfo };
// v5: tendon_length and tendon_velocity (arrays) follow the scalars.
enum V5Info { kV5XPosition, kV5YPosition, kV5DistanceFromOrigin, kV5XVelocity, kV5YVelocity,
              kV5RewardSurvive, kV5RewardForward, kV5RewardCtrl, kV5RewardContact,
              kV5TendonLength, kV5TendonVelocity, kV5NumScalarInfo = kV5TendonLength };

class HumanoidEnv : public MujocoEnv {
 public:
  HumanoidEnv(const EnvSpec& spec, std::uint64_t seed, std::shared_ptr<const mjModel> model,
              bool v5)
      : MujocoEnv(spec, seed, std::move(model), true),
        v5_(v5),
        forward_reward_weight_(spec.config.GetFloat("forward_reward_weight")),
        ctrl_cost_weight_(spec.config.GetFloat("ctrl_cost_weight")),
        contact_cost_weight_(v5 ? spec.config.GetFloat("contact_cost_weight") : 0.0),
        contact_cost_min_(v5 ? spec.config.GetFloat("contact_cost_min") : 0.0),
        contact_cost_max_(v5 ? spec.config.GetFloat("contact_cost_max") : 0.0),
        healthy_reward_(spec.config.GetFloat("healthy_reward")),
        terminate_when_unhealthy_(spec.config.GetBool("terminate_when_unhealthy")),
        healthy_z_min_(spec.config.GetFloat("healthy_z_min")),
        healthy_z_max_(spec.config.GetFloat("healthy_z_max")),
        reset_noise_scale_(spec.config.GetFloat("reset_noise_scale")),
        exclude_positions_(spec.config.GetBool("exclude_current_positions_from_observation")),
        cinert_(!v5 || spec.config.GetBool("include_cinert_in_observation")),
        cvel_(!v5 || spec.config.GetBool("include_cvel_in_observation")),
        qfrc_(!v5 || spec.config.GetBool("include_qfrc_actuator_in_observation")),
        cfrc_(!v5 || spec.config.GetBool("include_cfrc_ext_in_observation")) {
    for (int b = 0; b < model_->nbody; ++b) total_mass_ += model_->body_mass[b];
  }

  bool Reset(OutputRow& row) override {
    ResetData();
    double s = reset_noise_scale_;
    for (int i = 0; i < model_->nq; ++i) qpos_[i] = model_->qpos0[i] + Uniform(-s, s);
    for (int i = 0; i < model_->nv; ++i) qvel_[i] = Uniform(-s, s);
    SetState(qpos_.data(), qvel_.data());
    HumanoidObs(row.Obs<double>(), exclude_positions_, cinert_, cvel_, qfrc_, cfrc_, v5_);
    if (v5_) {
      ZeroInfos(row, kV5NumScalarInfo);
      SetInfo(row, kV5XPosition, data_->qpos[0]);
      SetInfo(row, kV5YPosition, data_->qpos[1]);
      SetInfo(row, kV5DistanceFromOrigin, Norm2(data_->qpos[0], data_->qpos[1]));
      WriteTendons(row);
    } else {
      ZeroInfos(row, kV4NumInfo);
    }
    WriteResetState(row);
    return true;
  }

  void Step(const void* action_ptr, OutputRow& row) override {
    const auto* action = static_cast<const double*>(action_ptr);
    double x_before, y_before, x_after, y_after;
    MassCenter(&x_before, &y_before);
    DoSimulation(action);
    MassCenter(&x_after, &y_after);
    double x_velocity = (x_after - x_before) / dt_;
    double y_velocity = (y_after - y_before) / dt_;
    HumanoidObs(row.Obs<double>(), exclude_positions_, cinert_, cvel_, qfrc_, cfrc_, v5_);

    double z = data_->qpos[2];
    bool healthy = healthy_z_min_ < z && z < healthy_z_max_;
    double ctrl_cost = ctrl_cost_weight_ * SquaredNorm(data_->ctrl, model_->nu);
    double forward_reward = forward_reward_weight_ * x_velocity;
    bool survive = v5_ ? healthy : (healthy || terminate_when_unhealthy_);
    double healthy_reward = survive ? healthy_reward_ : 0.0;
    row.terminated = !healthy && terminate_when_unhealthy_;
    if (v5_) {
      double contact_cost = Clip(contact_cost_weight_ * SquaredNorm(data_->cfrc_ext,
                                                                    6 * model_->nbody),
                                 contact_cost_min_, contact_cost_max_);
      row.reward =
          static_cast<float>((forward_reward + healthy_reward) - (ctrl_cost + contact_cost));
      SetInfo(row, kV5XPosition, data_->qpos[0]);
      SetInfo(row, kV5YPosition, data_->qpos[1]);
      SetInfo(row, kV5DistanceFromOrigin, Norm2(data_->qpos[0], data_->qpos[1]));
      SetInfo(row, kV5XVelocity, x_velocity);
      SetInfo(row, kV5YVelocity, y_velocity);
      SetInfo(row, kV5RewardSurvive, healthy_reward);
      SetInfo(row, kV5RewardForward, forward_reward);
      SetInfo(row, kV5RewardCtrl, -ctrl_cost);
      SetInfo(row, kV5RewardContact, -contact_cost);
      WriteTendons(row);
    } else {
      row.reward = static_cast<float>((forward_reward + healthy_reward) - ctrl_cost);
      SetInfo(row, kV4RewardLinvel, forward_reward);
      SetInfo(row, kV4RewardQuadctrl, -ctrl_cost);
      SetInfo(row, kV4RewardAlive, healthy_reward);
      SetInfo(row, kV4XPosition, x_after);
      SetInfo(row, kV4YPosition, y_after);
      SetInfo(row, kV4DistanceFromOrigin, Norm2(x_after, y_after));
      SetInfo(row, kV4XVelocity, x_velocity);
      SetInfo(row, kV4YVelocity, y_velocity);
      SetInfo(row, kV4ForwardReward, forward_reward);
    }
    WriteResetState(row);
  }

 private:
  // gymnasium's mass_center: the mass-weighted mean of the bodies' CoMs (x, y).
  void MassCenter(double* x, double* y) const {
    double sx = 0.0, sy = 0.0;
    for (int b = 0; b < model_->nbody; ++b) {
      sx += model_->body_mass[b] * data_->xipos[3 * b];
      sy += model_->body_mass[b] * data_->xipos[3 * b + 1];
    }
    *x = sx / total_mass_;
    *y = sy / total_mass_;
  }

  void WriteTendons(OutputRow& row) const {
    mju_copy(row.Info<double>(kV5TendonLength), data_->ten_length, model_->ntendon);
    mju_copy(row.Info<double>(kV5TendonVelocity), data_->ten_velocity, model_->ntendon);
  }

  bool v5_;
  double forward_reward_weight_;
  double ctrl_cost_weight_;
  double contact_cost_weight_;
  double contact_cost_min_, contact_cost_max_;
  double healthy_reward_;
  bool terminate_when_unhealthy_;
  double healthy_z_min_, healthy_z_max_;
  double reset_noise_scale_;
  bool exclude_positions_;
  bool cinert_, cvel_, qfrc_, cfrc_;
  double total_mass_ = 0.0;
};

}  // namespace

void RegisterHumanoid(TaskRegistry& registry, const std::string& asset_dir) {
  for (bool v5 : {false, true}) {
    MujocoTaskDef def;
    def.id = v5 ? "Humanoid-v5" : "Humanoid-v4";
    def.max_episode_steps = 1000;
    def.xml_file = "humanoid.xml";
    def.xml_option = v5;
    def.frame_skip = 5;
    def.frame_skip_option = v5;
    def.options = {
        OptionDef::Float("forward_reward_weight", 1.25,
                         "weight of the forward reward (x velocity of the center of mass)"),
        OptionDef::Float("ctrl_cost_weight", 0.1, "weight of the control cost"),
    };
    if (v5) {
      def.options.push_back(
          OptionDef::Float("contact_cost_weight", 5e-7, "weight of the contact cost"));
      def.options.push_back(OptionDef::Float("contact_cost_min",
                                             -std::numeric_limits<double>::infinity(),
                                             "the contact cost is clipped to >= this"));
      def.options.push_back(
          OptionDef::Float("contact_cost_max", 10.0, "the contact cost is clipped to <= this"));
    }
    def.options.push_back(
        OptionDef::Float("healthy_reward", 5.0, "reward per step for being healthy"));
    def.options.push_back(TerminateWhenUnhealthyOption());
    def.options.push_back(
        OptionDef::Float("healthy_z_min", 1.0, "healthy while the torso z is > this"));
    def.options.push_back(
        OptionDef::Float("healthy_z_max", 2.0, "healthy while the torso z is < this"));
    def.options.push_back(ResetNoiseScaleOption(1e-2));
    def.options.push_back(ExcludePositionsOption(2));
    if (v5) {
      def.options.push_back(OptionDef::Bool("include_cinert_in_observation", true,
                                            "add the bodies' com-based inertias (cinert)"));
      def.options.push_back(OptionDef::Bool("include_cvel_in_observation", true,
                                            "add the bodies' com-based velocities (cvel)"));
      def.options.push_back(OptionDef::Bool("include_qfrc_actuator_in_observation", true,
                                            "add the actuator forces (qfrc_actuator)"));
      def.options.push_back(OptionDef::Bool("include_cfrc_ext_in_observation", true,
                                            "add the external contact forces (cfrc_ext)"));
    }
    def.make_spec = [v5](const Config& c, const mjModel& m, EnvSpec* spec) {
      bool exclude = c.GetBool("exclude_current_positions_from_observation");
      int size =
          v5 ? WriteHumanoidObs(m, nullptr, nullptr, exclude,
                                      c.GetBool("include_cinert_in_observation"),
                                      c.GetBool("include_cvel_in_observation"),
                                      c.GetBool("include_qfrc_actuator_in_observation"),
                                      c.GetBool("include_cfrc_ext_in_observation"), true)
             : WriteHumanoidObs(m, nullptr, nullptr, exclude, true, true, true, true, false);
      spec->obs.push_back(ObsSpec(size));
      if (v5) {
        AddScalarInfos(spec, {"x_position", "y_position", "distance_from_origin", "x_velocity",
                              "y_velocity", "reward_survive", "reward_forward", "reward_ctrl",
                              "reward_contact"});
        spec->info.push_back(MakeArraySpec<double>("tendon_length", {static_cast<int>(m.ntendon)}));
        spec->info.push_back(MakeArraySpec<double>("tendon_velocity", {static_cast<int>(m.ntendon)}));
      } else {
        AddScalarInfos(spec, {"reward_linvel", "reward_quadctrl", "reward_alive", "x_position",
                              "y_position", "distance_from_origin", "x_velocity", "y_velocity",
                              "forward_reward"});
      }
    };
    def.make_env = [v5](const EnvSpec& spec, std::uint64_t seed,
                        std::shared_ptr<const mjModel> model) -> std::unique_ptr<Env> {
      return std::make_unique<HumanoidEnv>(spec, seed, std::move(model), v5);
    };
    AddMujocoTask(registry, asset_dir, std::move(def));
  }
}

}  // namespace envpool_core::mujoco
