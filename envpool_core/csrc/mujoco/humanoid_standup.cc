// HumanoidStandup-v4 / HumanoidStandup-v5 (gymnasium/envs/mujoco/humanoidstandup_v4.py, _v5.py).
#include <limits>

#include "mujoco/humanoid_model.h"
#include "mujoco/mujoco_env.h"

namespace envpool_core::mujoco {

namespace {

// v5: x_position, y_position, z_distance_from_origin, then the reward terms;
// tendon_length and tendon_velocity (arrays) follow the scalars.
enum V5Info { kV5XPosition, kV5YPosition, kV5ZDistance, kV5RewardLinup, kV5RewardQuadctrl,
              kV5RewardImpact, kV5TendonInfos, kV5NumScalarInfo = kV5TendonInfos };
enum V4Info { kV4RewardLinup, kV4RewardQuadctrl, kV4RewardImpact, kV4NumInfo };

class HumanoidStandupEnv final : public MujocoEnv {
 public:
  HumanoidStandupEnv(const EnvSpec& spec, std::uint64_t seed,
                     std::shared_ptr<const mjModel> model, bool v5)
      : MujocoEnv(spec, seed, std::move(model), v5, /*v4_post_constraint=*/true),
        uph_cost_weight_(spec.config.GetFloat("uph_cost_weight")),
        ctrl_cost_weight_(spec.config.GetFloat("ctrl_cost_weight")),
        impact_cost_weight_(spec.config.GetFloat("impact_cost_weight")),
        impact_cost_min_(spec.config.GetFloat("impact_cost_min")),
        impact_cost_max_(spec.config.GetFloat("impact_cost_max")),
        healthy_reward_(spec.config.GetFloat("healthy_reward")),
        reset_noise_scale_(spec.config.GetFloat("reset_noise_scale")),
        obs_(spec.config, v5, spec.config.GetBool("exclude_current_positions_from_observation")) {}

 private:
  void ResetModel(OutputRow& row) override {
    SetNoisyInitState(reset_noise_scale_, QvelNoise::kUniform);
    obs_.Write(*model_, *data_, row.Obs<double>());
    if (v5_) {
      ZeroInfos(row, kV5NumScalarInfo);
      WritePositions(row);
    } else {
      ZeroInfos(row, kV4NumInfo);
    }
  }

  void StepModel(const double* action, OutputRow& row) override {
    DoSimulation(action);
    double pos_after = data_->qpos[2];
    // gymnasium's v5 documents uph_cost_weight as the weight of this term but
    // does not apply it; here it is applied (the default 1 is the same).
    double uph_cost = uph_cost_weight_ * ((pos_after - 0) / model_->opt.timestep);
    double quad_ctrl_cost = ctrl_cost_weight_ * SquaredNorm(data_->ctrl, model_->nu);
    double quad_impact_cost = impact_cost_weight_ * SquaredNorm(data_->cfrc_ext, 6 * model_->nbody);
    quad_impact_cost = Clip(quad_impact_cost, impact_cost_min_, impact_cost_max_);
    row.reward = static_cast<float>(uph_cost - quad_ctrl_cost - quad_impact_cost + healthy_reward_);
    row.terminated = false;
    obs_.Write(*model_, *data_, row.Obs<double>());
    if (v5_) {
      WritePositions(row);
      SetInfo(row, kV5RewardLinup, uph_cost);
      SetInfo(row, kV5RewardQuadctrl, -quad_ctrl_cost);
      SetInfo(row, kV5RewardImpact, -quad_impact_cost);
    } else {
      SetInfo(row, kV4RewardLinup, uph_cost);
      SetInfo(row, kV4RewardQuadctrl, -quad_ctrl_cost);
      SetInfo(row, kV4RewardImpact, -quad_impact_cost);
    }
  }

  void WritePositions(OutputRow& row) const {
    SetInfo(row, kV5XPosition, data_->qpos[0]);
    SetInfo(row, kV5YPosition, data_->qpos[1]);
    SetInfo(row, kV5ZDistance, data_->qpos[2] - model_->qpos0[2]);
    WriteTendonInfos(row, kV5TendonInfos, *model_, *data_);
  }

  double uph_cost_weight_;
  double ctrl_cost_weight_;
  double impact_cost_weight_;
  double impact_cost_min_, impact_cost_max_;
  double healthy_reward_;
  double reset_noise_scale_;
  HumanoidObs obs_;
};

}  // namespace

void RegisterHumanoidStandup(TaskRegistry& registry, const std::string& asset_dir) {
  for (bool v5 : {false, true}) {
    MujocoTaskDef def = VersionedTaskDef("HumanoidStandup", v5, 1000, "humanoidstandup.xml", 5);
    // gymnasium's v4 has no options: these are v5's, and EnvPool's for both
    // (healthy_reward, the constant 1 of gymnasium's reward, is EnvPool's only).
    def.options = {
        OptionDef::Float("uph_cost_weight", 1.0, "weight of the upward reward (torso z / timestep)"),
        CtrlCostWeightOption(0.1),
        OptionDef::Float("impact_cost_weight", 5e-7, "weight of the impact (contact) cost"),
        OptionDef::Float("impact_cost_min", -std::numeric_limits<double>::infinity(),
                         "the impact cost is clipped to >= this"),
        OptionDef::Float("impact_cost_max", 10.0, "the impact cost is clipped to <= this"),
        HealthyRewardOption(1.0, "reward per step"),
        ResetNoiseScaleOption(1e-2),
        ExcludePositionsOption(2),
    };
    if (v5) {
      for (auto& o : HumanoidObsOptions()) def.options.push_back(std::move(o));
    }
    def.aliases = {{"forward_reward_weight", "uph_cost_weight"},
                   {"contact_cost_weight", "impact_cost_weight"},
                   {"contact_cost_max", "impact_cost_max"}};
    RefuseVersionSwitch(&def, "exclude_worldbody_observations", "False", "True");
    RefuseVersionSwitch(&def, "exclude_root_actuator_forces", "False", "True");
    def.make_spec = [v5](const Config& c, const mjModel& m, EnvSpec* spec) {
      HumanoidObs obs(c, v5, c.GetBool("exclude_current_positions_from_observation"));
      spec->obs.push_back(ObsSpec(obs.Size(m)));
      if (v5) {
        AddScalarInfos(spec, {"x_position", "y_position", "z_distance_from_origin",
                              "reward_linup", "reward_quadctrl", "reward_impact"});
        AddTendonInfos(spec, m);
      } else {
        AddScalarInfos(spec, {"reward_linup", "reward_quadctrl", "reward_impact"});
      }
    };
    def.make_env = EnvFactory<HumanoidStandupEnv>(v5);
    AddMujocoTask(registry, asset_dir, std::move(def));
  }
}

}  // namespace envpool_core::mujoco
