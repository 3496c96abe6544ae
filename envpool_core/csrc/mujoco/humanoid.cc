// Humanoid-v4 / Humanoid-v5 (gymnasium/envs/mujoco/humanoid_v4.py, humanoid_v5.py).
#include <limits>

#include "mujoco/humanoid_model.h"
#include "mujoco/locomotion_env.h"

namespace envpool_core::mujoco {

namespace {

// x_position, y_position, distance_from_origin, x_velocity and y_velocity
// (SetXYInfos) start at kV4XY / kV5XY.
enum V4Info { kV4RewardLinvel, kV4RewardQuadctrl, kV4RewardAlive, kV4XY,
              kV4ForwardReward = kV4XY + 5, kV4NumInfo };
// v5: tendon_length and tendon_velocity (arrays) follow the scalars.
enum V5Info { kV5XY, kV5RewardSurvive = kV5XY + 5, kV5RewardForward, kV5RewardCtrl,
              kV5RewardContact, kV5TendonInfos, kV5NumScalarInfo = kV5TendonInfos };

class HumanoidEnv final : public LocomotionEnv {
 public:
  HumanoidEnv(const EnvSpec& spec, std::uint64_t seed, std::shared_ptr<const mjModel> model,
              bool v5)
      : LocomotionEnv(spec, seed, std::move(model), v5, /*num_excluded=*/2,
                      /*v4_post_constraint=*/true),
        health_(spec.config, v5),
        // v4 has a contact cost only with EnvPool's use_contact_force (gymnasium's v3's).
        contact_cost_(v5 || spec.config.GetBool("use_contact_force")),
        contact_cost_weight_(spec.config.GetFloat("contact_cost_weight")),
        contact_cost_min_(v5 ? spec.config.GetFloat("contact_cost_min")
                             : -std::numeric_limits<double>::infinity()),
        contact_cost_max_(spec.config.GetFloat("contact_cost_max")),
        healthy_z_min_(spec.config.GetFloat("healthy_z_min")),
        healthy_z_max_(spec.config.GetFloat("healthy_z_max")),
        obs_(spec.config, v5, exclude_positions_) {
    for (int b = 0; b < model_->nbody; ++b) total_mass_ += model_->body_mass[b];
  }

 private:
  void ResetModel(OutputRow& row) override {
    SetNoisyInitState(reset_noise_scale_, QvelNoise::kUniform);
    obs_.Write(*model_, *data_, row.Obs<double>());
    if (v5_) {
      ZeroInfos(row, kV5NumScalarInfo);
      SetXYInfos(row, kV5XY, data_->qpos[0], data_->qpos[1], 0.0, 0.0);
      WriteTendonInfos(row, kV5TendonInfos, *model_, *data_);
    } else {
      ZeroInfos(row, kV4NumInfo);
    }
  }

  void StepModel(const double* action, OutputRow& row) override {
    Motion m = SimulateTracking(action);
    obs_.Write(*model_, *data_, row.Obs<double>());

    double z = data_->qpos[2];
    bool healthy = healthy_z_min_ < z && z < healthy_z_max_;
    double ctrl_cost = ControlCost(data_->ctrl);
    double forward_reward = ForwardReward(m.x_velocity);
    double healthy_reward = health_.Reward(healthy);
    row.terminated = health_.Terminated(healthy);
    double contact_cost =
        contact_cost_ ? Clip(contact_cost_weight_ * SquaredNorm(data_->cfrc_ext, 6 * model_->nbody),
                             contact_cost_min_, contact_cost_max_)
                      : 0.0;
    if (v5_) {
      row.reward =
          static_cast<float>((forward_reward + healthy_reward) - (ctrl_cost + contact_cost));
      // v5 reports the root joint's position, not the center of mass.
      SetXYInfos(row, kV5XY, data_->qpos[0], data_->qpos[1], m.x_velocity, m.y_velocity);
      SetInfo(row, kV5RewardSurvive, healthy_reward);
      SetInfo(row, kV5RewardForward, forward_reward);
      SetInfo(row, kV5RewardCtrl, -ctrl_cost);
      SetInfo(row, kV5RewardContact, -contact_cost);
      WriteTendonInfos(row, kV5TendonInfos, *model_, *data_);
    } else {
      row.reward =
          static_cast<float>((forward_reward + healthy_reward) - (ctrl_cost + contact_cost));
      SetInfo(row, kV4RewardLinvel, forward_reward);
      SetInfo(row, kV4RewardQuadctrl, -ctrl_cost);
      SetInfo(row, kV4RewardAlive, healthy_reward);
      SetXYInfos(row, kV4XY, m.x, m.y, m.x_velocity, m.y_velocity);
      SetInfo(row, kV4ForwardReward, forward_reward);
    }
  }

  // gymnasium's mass_center: the mass-weighted mean of the bodies' CoMs (x, y).
  Point TrackedPoint() const override {
    double sx = 0.0, sy = 0.0;
    for (int b = 0; b < model_->nbody; ++b) {
      sx += model_->body_mass[b] * data_->xipos[3 * b];
      sy += model_->body_mass[b] * data_->xipos[3 * b + 1];
    }
    return {sx / total_mass_, sy / total_mass_};
  }

  Health health_;
  bool contact_cost_;
  double contact_cost_weight_;
  double contact_cost_min_, contact_cost_max_;
  double healthy_z_min_, healthy_z_max_;
  HumanoidObs obs_;
  double total_mass_ = 0.0;
};

}  // namespace

void RegisterHumanoid(TaskRegistry& registry, const std::string& asset_dir) {
  for (bool v5 : {false, true}) {
    MujocoTaskDef def = VersionedTaskDef("Humanoid", v5, 1000, "humanoid.xml", 5);
    def.options = {
        ForwardRewardWeightOption(1.25, "x velocity of the center of mass"),
        CtrlCostWeightOption(0.1),
    };
    if (!v5) {
      def.options.push_back(OptionDef::Bool(
          "use_contact_force", false,
          "EnvPool's: add the contact cost to the reward (gymnasium's v4 has none)"));
    }
    def.options.push_back(
        OptionDef::Float("contact_cost_weight", 5e-7, "weight of the contact cost"));
    if (v5) {
      def.options.push_back(OptionDef::Float("contact_cost_min",
                                             -std::numeric_limits<double>::infinity(),
                                             "the contact cost is clipped to >= this"));
    }
    def.options.push_back(
        OptionDef::Float("contact_cost_max", 10.0, "the contact cost is clipped to <= this"));
    RefuseVersionSwitch(&def, "legacy_healthy_reward", "True", "False");
    RefuseVersionSwitch(&def, "exclude_worldbody_observations", "False", "True");
    RefuseVersionSwitch(&def, "exclude_root_actuator_forces", "False", "True");
    if (v5) RefuseV5UseContactForce(&def);
    def.options.push_back(HealthyRewardOption(5.0));
    def.options.push_back(TerminateWhenUnhealthyOption());
    for (auto& o : StrictHealthyZOptions(1.0, 2.0)) def.options.push_back(std::move(o));
    def.options.push_back(ResetNoiseScaleOption(1e-2));
    def.options.push_back(ExcludePositionsOption(2));
    if (v5) {
      for (auto& o : HumanoidObsOptions()) def.options.push_back(std::move(o));
    }
    def.make_spec = [v5](const Config& c, const mjModel& m, EnvSpec* spec) {
      HumanoidObs obs(c, v5, c.GetBool("exclude_current_positions_from_observation"));
      spec->obs.push_back(ObsSpec(obs.Size(m)));
      if (v5) {
        AddScalarInfos(spec, {"x_position", "y_position", "distance_from_origin", "x_velocity",
                              "y_velocity", "reward_survive", "reward_forward", "reward_ctrl",
                              "reward_contact"});
        AddTendonInfos(spec, m);
      } else {
        AddScalarInfos(spec, {"reward_linvel", "reward_quadctrl", "reward_alive", "x_position",
                              "y_position", "distance_from_origin", "x_velocity", "y_velocity",
                              "forward_reward"});
      }
    };
    def.make_env = EnvFactory<HumanoidEnv>(v5);
    AddMujocoTask(registry, asset_dir, std::move(def));
  }
}

}  // namespace envpool_core::mujoco
