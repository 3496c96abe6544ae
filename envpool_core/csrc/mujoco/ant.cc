// Ant-v4 / Ant-v5 (gymnasium/envs/mujoco/ant_v4.py, ant_v5.py).
#include <stdexcept>

#include "mujoco/locomotion_env.h"
#include "mujoco/model_names.h"

namespace envpool_core::mujoco {

namespace {

// Info columns, in spec order; x_position, y_position, distance_from_origin,
// x_velocity and y_velocity (SetXYInfos) start at kV4XY / kV5XY.
enum V4Info { kV4RewardForward, kV4RewardCtrl, kV4RewardSurvive, kV4XY,
              kV4ForwardReward = kV4XY + 5, kV4NumInfo };
enum V5Info { kV5XY, kV5RewardForward = kV5XY + 5, kV5RewardCtrl, kV5RewardContact,
              kV5RewardSurvive, kV5NumInfo };

int MainBody(const Config& c, const mjModel& m, bool v5) {
  if (!v5) return NameId(&m, mjOBJ_BODY, "torso");
  auto id = c.GetInt("main_body");
  if (id < 0 || id >= m.nbody) {
    throw std::invalid_argument("main_body " + std::to_string(id) + " is not a body id in [0, " +
                                std::to_string(m.nbody) + ")");
  }
  return static_cast<int>(id);
}

class AntEnv final : public LocomotionEnv {
 public:
  AntEnv(const EnvSpec& spec, std::uint64_t seed, std::shared_ptr<const mjModel> model, bool v5)
      : LocomotionEnv(spec, seed, std::move(model), v5, /*num_excluded=*/2,
                      !v5 && spec.config.GetBool("use_contact_forces")),
        health_(spec.config, v5),
        contact_cost_weight_(spec.config.GetFloat("contact_cost_weight")),
        healthy_z_min_(spec.config.GetFloat("healthy_z_min")),
        healthy_z_max_(spec.config.GetFloat("healthy_z_max")),
        contact_force_min_(spec.config.GetFloat("contact_force_min")),
        contact_force_max_(spec.config.GetFloat("contact_force_max")),
        contact_in_obs_(v5 ? spec.config.GetBool("include_cfrc_ext_in_observation")
                           : spec.config.GetBool("use_contact_forces")),
        main_body_(MainBody(spec.config, *model_, v5)) {}

 private:
  void ResetModel(OutputRow& row) override {
    SetNoisyInitState(reset_noise_scale_, QvelNoise::kNormal);
    WriteObs(row);
    ZeroInfos(row, v5_ ? static_cast<int>(kV5NumInfo) : static_cast<int>(kV4NumInfo));
    if (v5_) SetXYInfos(row, kV5XY, data_->qpos[0], data_->qpos[1], 0.0, 0.0);
  }

  void StepModel(const double* action, OutputRow& row) override {
    Motion m = SimulateTracking(action);
    WriteObs(row);

    bool healthy = IsHealthy();
    double ctrl_cost = ControlCost(action);
    double forward_reward = ForwardReward(m.x_velocity);
    double healthy_reward = health_.Reward(healthy);
    row.terminated = health_.Terminated(healthy);
    if (v5_) {
      double contact_cost = ContactCost();
      row.reward =
          static_cast<float>((forward_reward + healthy_reward) - (ctrl_cost + contact_cost));
      // v5 reports the root joint's position, not the main body's.
      SetXYInfos(row, kV5XY, data_->qpos[0], data_->qpos[1], m.x_velocity, m.y_velocity);
      SetInfo(row, kV5RewardForward, forward_reward);
      SetInfo(row, kV5RewardCtrl, -ctrl_cost);
      SetInfo(row, kV5RewardContact, -contact_cost);
      SetInfo(row, kV5RewardSurvive, healthy_reward);
    } else {
      double costs = ctrl_cost;
      // gymnasium's v4 reports the contact cost (not the control cost) as
      // reward_ctrl when contact forces are used; kept for alignment.
      double reward_ctrl = -ctrl_cost;
      if (contact_in_obs_) {
        double contact_cost = ContactCost();
        costs += contact_cost;
        reward_ctrl = -contact_cost;
      }
      row.reward = static_cast<float>((forward_reward + healthy_reward) - costs);
      SetInfo(row, kV4RewardForward, forward_reward);
      SetInfo(row, kV4RewardCtrl, reward_ctrl);
      SetInfo(row, kV4RewardSurvive, healthy_reward);
      SetXYInfos(row, kV4XY, m.x, m.y, m.x_velocity, m.y_velocity);
      SetInfo(row, kV4ForwardReward, forward_reward);
    }
  }

  // The main body's position (x/y of its frame).
  Point TrackedPoint() const override {
    const mjtNum* xpos = data_->xpos + 3 * main_body_;
    return {xpos[0], xpos[1]};
  }

  bool IsHealthy() const {
    double z = data_->qpos[2];
    return StateIsFinite() && healthy_z_min_ <= z && z <= healthy_z_max_;
  }

  double ContactCost() const {
    double s = 0.0;
    for (int i = 0; i < 6 * model_->nbody; ++i) {
      double f = Clip(data_->cfrc_ext[i], contact_force_min_, contact_force_max_);
      s += f * f;
    }
    return contact_cost_weight_ * s;
  }

  void WriteObs(OutputRow& row) const {
    double* obs = WriteStateObs(row.Obs<double>(), obs_qpos_begin_);
    if (contact_in_obs_) {
      // v4: all bodies; v5: all but the world body.
      for (int i = v5_ ? 6 : 0; i < 6 * model_->nbody; ++i) {
        *obs++ = Clip(data_->cfrc_ext[i], contact_force_min_, contact_force_max_);
      }
    }
  }

  Health health_;
  double contact_cost_weight_;
  double healthy_z_min_, healthy_z_max_;
  double contact_force_min_, contact_force_max_;
  bool contact_in_obs_;
  int main_body_;
};

std::vector<OptionDef> CommonOptions() {
  return {
      CtrlCostWeightOption(0.5),
      OptionDef::Float("contact_cost_weight", 5e-4, "weight of the contact cost"),
      HealthyRewardOption(1.0),
      TerminateWhenUnhealthyOption(),
      OptionDef::Float("healthy_z_min", 0.2, "healthy while healthy_z_min <= torso z"),
      OptionDef::Float("healthy_z_max", 1.0, "healthy while torso z <= healthy_z_max"),
      OptionDef::Float("contact_force_min", -1.0, "contact forces are clipped to >= this"),
      OptionDef::Float("contact_force_max", 1.0, "contact forces are clipped to <= this"),
      ResetNoiseScaleOption(0.1),
      ExcludePositionsOption(2),
  };
}

}  // namespace

void RegisterAnt(TaskRegistry& registry, const std::string& asset_dir) {
  for (bool v5 : {false, true}) {
    MujocoTaskDef def = VersionedTaskDef("Ant", v5, 1000, "ant.xml", 5);
    def.options = CommonOptions();
    // gymnasium's Ant-v4 has no forward_reward_weight; EnvPool's has (1: v4's reward).
    def.options.insert(def.options.begin(), ForwardRewardWeightOption(1.0));
    RefuseVersionSwitch(&def, "legacy_healthy_reward", "True", "False");
    RefuseVersionSwitch(&def, "exclude_worldbody_contact_forces", "False", "True");
    if (v5) {
      RefuseV5UseContactForce(&def);
      def.options.push_back(OptionDef::Int("main_body", 1,
                                           "id of the body whose x/y displacement is the "
                                           "forward reward (1: torso)"));
      def.options.push_back(OptionDef::Bool("include_cfrc_ext_in_observation", true,
                                            "add the clipped external contact forces of every "
                                            "body but the world to the observation"));
    } else {
      def.options.insert(def.options.begin() + 1,
                         OptionDef::Bool("use_contact_forces", false,
                                         "add clipped contact forces to the observation and "
                                         "the contact cost to the reward"));
      def.aliases["use_contact_force"] = "use_contact_forces";
    }
    def.make_spec = [v5](const Config& c, const mjModel& m, EnvSpec* spec) {
      MainBody(c, m, v5);
      int size = LocomotionObsSize(c, m, 2);
      if (v5 ? c.GetBool("include_cfrc_ext_in_observation") : c.GetBool("use_contact_forces")) {
        size += 6 * (v5 ? m.nbody - 1 : m.nbody);
      }
      spec->obs.push_back(ObsSpec(size));
      if (v5) {
        AddScalarInfos(spec, {"x_position", "y_position", "distance_from_origin", "x_velocity",
                              "y_velocity", "reward_forward", "reward_ctrl", "reward_contact",
                              "reward_survive"});
      } else {
        AddScalarInfos(spec, {"reward_forward", "reward_ctrl", "reward_survive", "x_position",
                              "y_position", "distance_from_origin", "x_velocity", "y_velocity",
                              "forward_reward"});
      }
    };
    def.make_env = EnvFactory<AntEnv>(v5);
    AddMujocoTask(registry, asset_dir, std::move(def));
  }
}

}  // namespace envpool_core::mujoco
