// HumanoidStandup-v4 / HumanoidStandup-v5 (gymnasium/envs/mujoco/humanoidstandup_v4.py, _v5.py).
#include <limits>

#include "mujoco/mujoco_env.h"

namespace envpool_core::mujoco {

namespace {

// v5: x_position, y_position, z_distance_from_origin, then the reward terms;
// tendon_length and tendon_velocity (arrays) follow the scalars.
enum V5Info { kV5XPosition, kV5YPosition, kV5ZDistance, kV5RewardLinup, kV5RewardQuadctrl,
              kV5RewardImpact, kV5TendonLength, kV5TendonVelocity,
              kV5NumScalarInfo = kV5TendonLength };
enum V4Info { kV4RewardLinup, kV4RewardQuadctrl, kV4RewardImpact, kV4NumInfo };

class HumanoidStandupEnv : public MujocoEnv {
 public:
  HumanoidStandupEnv(const EnvSpec& spec, std::uint64_t seed,
                     std::shared_ptr<const mjModel> model, bool v5)
      : MujocoEnv(spec, seed, std::move(model), true),
        v5_(v5),
        uph_cost_weight_(v5 ? spec.config.GetFloat("uph_cost_weight") : 1.0),
        ctrl_cost_weight_(v5 ? spec.config.GetFloat("ctrl_cost_weight") : 0.1),
        impact_cost_weight_(v5 ? spec.config.GetFloat("impact_cost_weight") : 5e-7),
        impact_cost_min_(v5 ? spec.config.GetFloat("impact_cost_min")
                            : -std::numeric_limits<double>::infinity()),
        impact_cost_max_(v5 ? spec.config.GetFloat("impact_cost_max") : 10.0),
        reset_noise_scale_(v5 ? spec.config.GetFloat("reset_noise_scale") : 0.01),
        exclude_positions_(!v5 ||
                           spec.config.GetBool("exclude_current_positions_from_observation")),
        cinert_(!v5 || spec.config.GetBool("include_cinert_in_observation")),
        cvel_(!v5 || spec.config.GetBool("include_cvel_in_observation")),
        qfrc_(!v5 || spec.config.GetBool("include_qfrc_actuator_in_observation")),
        cfrc_(!v5 || spec.config.GetBool("include_cfrc_ext_in_observation")) {}

  bool Reset(OutputRow& row) override {
    ResetData();
    double s = reset_noise_scale_;
    for (int i = 0; i < model_->nq; ++i) qpos_[i] = model_->qpos0[i] + Uniform(-s, s);
    for (int i = 0; i < model_->nv; ++i) qvel_[i] = Uniform(-s, s);
    SetState(qpos_.data(), qvel_.data());
    HumanoidObs(row.Obs<double>(), exclude_positions_, cinert_, cvel_, qfrc_, cfrc_, v5_);
    if (v5_) {
      ZeroInfos(row, kV5NumScalarInfo);
      WritePositions(row);
    } else {
      ZeroInfos(row, kV4NumInfo);
    }
    WriteResetState(row);
    return true;
  }

  void Step(const void* action_ptr, OutputRow& row) override {
    DoSimulation(static_cast<const double*>(action_ptr));
    double pos_after = data_->qpos[2];
    // gymnasium's v5 documents uph_cost_weight as the weight of this term but
    // does not apply it; here it is applied (the default 1 is the same).
    double uph_cost = uph_cost_weight_ * ((pos_after - 0) / model_->opt.timestep);
    double quad_ctrl_cost = ctrl_cost_weight_ * SquaredNorm(data_->ctrl, model_->nu);
    double quad_impact_cost = impact_cost_weight_ * SquaredNorm(data_->cfrc_ext, 6 * model_->nbody);
    quad_impact_cost = Clip(quad_impact_cost, impact_cost_min_, impact_cost_max_);
    row.reward = static_cast<float>(uph_cost - quad_ctrl_cost - quad_impact_cost + 1);
    row.terminated = false;
    HumanoidObs(row.Obs<double>(), exclude_positions_, cinert_, cvel_, qfrc_, cfrc_, v5_);
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
    WriteResetState(row);
  }

 private:
  void WritePositions(OutputRow& row) const {
    SetInfo(row, kV5XPosition, data_->qpos[0]);
    SetInfo(row, kV5YPosition, data_->qpos[1]);
    SetInfo(row, kV5ZDistance, data_->qpos[2] - model_->qpos0[2]);
    mju_copy(row.Info<double>(kV5TendonLength), data_->ten_length, model_->ntendon);
    mju_copy(row.Info<double>(kV5TendonVelocity), data_->ten_velocity, model_->ntendon);
  }

  bool v5_;
  double uph_cost_weight_;
  double ctrl_cost_weight_;
  double impact_cost_weight_;
  double impact_cost_min_, impact_cost_max_;
  double reset_noise_scale_;
  bool exclude_positions_;
  bool cinert_, cvel_, qfrc_, cfrc_;
};

}  // namespace

void RegisterHumanoidStandup(TaskRegistry& registry, const std::string& asset_dir) {
  for (bool v5 : {false, true}) {
    MujocoTaskDef def;
    def.id = v5 ? "HumanoidStandup-v5" : "HumanoidStandup-v4";
    def.max_episode_steps = 1000;
    def.xml_file = "humanoidstandup.xml";
    def.xml_option = v5;
    def.frame_skip = 5;
    def.frame_skip_option = v5;
    if (v5) {
      def.options = {
          OptionDef::Float("uph_cost_weight", 1.0,
                           "weight of the upward reward (torso z / timestep)"),
          OptionDef::Float("ctrl_cost_weight", 0.1, "weight of the control cost"),
          OptionDef::Float("impact_cost_weight", 5e-7, "weight of the impact (contact) cost"),
          OptionDef::Float("impact_cost_min", -std::numeric_limits<double>::infinity(),
                           "the impact cost is clipped to >= this"),
          OptionDef::Float("impact_cost_max", 10.0, "the impact cost is clipped to <= this"),
          ResetNoiseScaleOption(1e-2),
          ExcludePositionsOption(2),
          OptionDef::Bool("include_cinert_in_observation", true,
                          "add the bodies' com-based inertias (cinert)"),
          OptionDef::Bool("include_cvel_in_observation", true,
                          "add the bodies' com-based velocities (cvel)"),
          OptionDef::Bool("include_qfrc_actuator_in_observation", true,
                          "add the actuator forces (qfrc_actuator)"),
          OptionDef::Bool("include_cfrc_ext_in_observation", true,
                          "add the external contact forces (cfrc_ext)"),
      };
    }
    def.make_spec = [v5](const Config& c, const mjModel& m, EnvSpec* spec) {
      int size =
          v5 ? WriteHumanoidObs(m, nullptr, nullptr,
                                      c.GetBool("exclude_current_positions_from_observation"),
                                      c.GetBool("include_cinert_in_observation"),
                                      c.GetBool("include_cvel_in_observation"),
                                      c.GetBool("include_qfrc_actuator_in_observation"),
                                      c.GetBool("include_cfrc_ext_in_observation"), true)
             : WriteHumanoidObs(m, nullptr, nullptr, true, true, true, true, true, false);
      spec->obs.push_back(ObsSpec(size));
      if (v5) {
        AddScalarInfos(spec, {"x_position", "y_position", "z_distance_from_origin",
                              "reward_linup", "reward_quadctrl", "reward_impact"});
        spec->info.push_back(MakeArraySpec<double>("tendon_length", {static_cast<int>(m.ntendon)}));
        spec->info.push_back(MakeArraySpec<double>("tendon_velocity", {static_cast<int>(m.ntendon)}));
      } else {
        AddScalarInfos(spec, {"reward_linup", "reward_quadctrl", "reward_impact"});
      }
    };
    def.make_env = [v5](const EnvSpec& spec, std::uint64_t seed,
                        std::shared_ptr<const mjModel> model) -> std::unique_ptr<Env> {
      return std::make_unique<HumanoidStandupEnv>(spec, seed, std::move(model), v5);
    };
    AddMujocoTask(registry, asset_dir, std::move(def));
  }
}

}  // namespace envpool_core::mujoco
