// Ant-v4 / Ant-v5 (gymnasium/envs/mujoco/ant_v4.py, ant_v5.py).
#include <cmath>
#include <stdexcept>

#include "mujoco/mujoco_env.h"

namespace envpool_core::mujoco {

namespace {

// Info columns, in spec order.
enum V4Info { kV4RewardForward, kV4RewardCtrl, kV4RewardSurvive, kV4XPosition, kV4YPosition,
              kV4DistanceFromOrigin, kV4XVelocity, kV4YVelocity, kV4ForwardReward, kV4NumInfo };
enum V5Info { kV5XPosition, kV5YPosition, kV5DistanceFromOrigin, kV5XVelocity, kV5YVelocity,
              kV5RewardForward, kV5RewardCtrl, kV5RewardContact, kV5RewardSurvive, kV5NumInfo };

int MainBody(const Config& c, const mjModel& m, bool v5) {
  if (!v5) {
    int id = mj_name2id(&m, mjOBJ_BODY, "torso");
    if (id < 0) throw std::invalid_argument("Ant-v4 needs a body named 'torso' in its model");
    return id;
  }
  auto id = c.GetInt("main_body");
  if (id < 0 || id >= m.nbody) {
    throw std::invalid_argument("main_body " + std::to_string(id) + " is not a body id in [0, " +
                                std::to_string(m.nbody) + ")");
  }
  return static_cast<int>(id);
}

class AntEnv : public MujocoEnv {
 public:
  AntEnv(const EnvSpec& spec, std::uint64_t seed, std::shared_ptr<const mjModel> model, bool v5)
      : MujocoEnv(spec, seed, std::move(model),
                  v5 || spec.config.GetBool("use_contact_forces")),
        v5_(v5),
        forward_reward_weight_(v5 ? spec.config.GetFloat("forward_reward_weight") : 1.0),
        ctrl_cost_weight_(spec.config.GetFloat("ctrl_cost_weight")),
        contact_cost_weight_(spec.config.GetFloat("contact_cost_weight")),
        healthy_reward_(spec.config.GetFloat("healthy_reward")),
        terminate_when_unhealthy_(spec.config.GetBool("terminate_when_unhealthy")),
        healthy_z_min_(spec.config.GetFloat("healthy_z_min")),
        healthy_z_max_(spec.config.GetFloat("healthy_z_max")),
        contact_force_min_(spec.config.GetFloat("contact_force_min")),
        contact_force_max_(spec.config.GetFloat("contact_force_max")),
        reset_noise_scale_(spec.config.GetFloat("reset_noise_scale")),
        exclude_positions_(spec.config.GetBool("exclude_current_positions_from_observation")),
        contact_in_obs_(v5 ? spec.config.GetBool("include_cfrc_ext_in_observation")
                           : spec.config.GetBool("use_contact_forces")),
        main_body_(MainBody(spec.config, *model_, v5)) {}

  bool Reset(OutputRow& row) override {
    ResetData();
    for (int i = 0; i < model_->nq; ++i) {
      qpos_[i] = model_->qpos0[i] + Uniform(-reset_noise_scale_, reset_noise_scale_);
    }
    for (int i = 0; i < model_->nv; ++i) qvel_[i] = reset_noise_scale_ * StandardNormal();
    SetState(qpos_.data(), qvel_.data());
    WriteObs(row);
    ZeroInfos(row, v5_ ? static_cast<int>(kV5NumInfo) : static_cast<int>(kV4NumInfo));
    if (v5_) {
      SetInfo(row, kV5XPosition, data_->qpos[0]);
      SetInfo(row, kV5YPosition, data_->qpos[1]);
      SetInfo(row, kV5DistanceFromOrigin, Norm2(data_->qpos[0], data_->qpos[1]));
    }
    WriteResetState(row);
    return true;
  }

  void Step(const void* action_ptr, OutputRow& row) override {
    const auto* action = static_cast<const double*>(action_ptr);
    const mjtNum* xpos = data_->xpos + 3 * main_body_;
    double x_before = xpos[0], y_before = xpos[1];
    DoSimulation(action);
    double x_after = xpos[0], y_after = xpos[1];
    double x_velocity = (x_after - x_before) / dt_;
    double y_velocity = (y_after - y_before) / dt_;
    WriteObs(row);

    bool healthy = IsHealthy();
    double ctrl_cost = ctrl_cost_weight_ * SquaredNorm(action, model_->nu);
    if (v5_) {
      double forward_reward = x_velocity * forward_reward_weight_;
      double healthy_reward = healthy ? healthy_reward_ : 0.0;
      double contact_cost = ContactCost();
      row.reward = static_cast<float>((forward_reward + healthy_reward) - (ctrl_cost + contact_cost));
      row.terminated = !healthy && terminate_when_unhealthy_;
      SetInfo(row, kV5XPosition, data_->qpos[0]);
      SetInfo(row, kV5YPosition, data_->qpos[1]);
      SetInfo(row, kV5DistanceFromOrigin, Norm2(data_->qpos[0], data_->qpos[1]));
      SetInfo(row, kV5XVelocity, x_velocity);
      SetInfo(row, kV5YVelocity, y_velocity);
      SetInfo(row, kV5RewardForward, forward_reward);
      SetInfo(row, kV5RewardCtrl, -ctrl_cost);
      SetInfo(row, kV5RewardContact, -contact_cost);
      SetInfo(row, kV5RewardSurvive, healthy_reward);
    } else {
      double forward_reward = x_velocity;
      double healthy_reward = (healthy || terminate_when_unhealthy_) ? healthy_reward_ : 0.0;
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
      row.terminated = terminate_when_unhealthy_ && !healthy;
      SetInfo(row, kV4RewardForward, forward_reward);
      SetInfo(row, kV4RewardCtrl, reward_ctrl);
      SetInfo(row, kV4RewardSurvive, healthy_reward);
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
    double* obs = row.Obs<double>();
    int skip = exclude_positions_ ? 2 : 0;
    for (int i = skip; i < model_->nq; ++i) *obs++ = data_->qpos[i];
    for (int i = 0; i < model_->nv; ++i) *obs++ = data_->qvel[i];
    if (contact_in_obs_) {
      // v4: all bodies; v5: all but the world body.
      for (int i = v5_ ? 6 : 0; i < 6 * model_->nbody; ++i) {
        *obs++ = Clip(data_->cfrc_ext[i], contact_force_min_, contact_force_max_);
      }
    }
  }

  bool v5_;
  double forward_reward_weight_;
  double ctrl_cost_weight_;
  double contact_cost_weight_;
  double healthy_reward_;
  bool terminate_when_unhealthy_;
  double healthy_z_min_, healthy_z_max_;
  double contact_force_min_, contact_force_max_;
  double reset_noise_scale_;
  bool exclude_positions_;
  bool contact_in_obs_;
  int main_body_;
};

std::vector<OptionDef> CommonOptions(double ctrl_cost_weight) {
  return {
      OptionDef::Float("ctrl_cost_weight", ctrl_cost_weight, "weight of the control cost"),
      OptionDef::Float("contact_cost_weight", 5e-4, "weight of the contact cost"),
      OptionDef::Float("healthy_reward", 1.0, "reward per step for being healthy"),
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
    MujocoTaskDef def;
    def.id = v5 ? "Ant-v5" : "Ant-v4";
    def.max_episode_steps = 1000;
    def.xml_file = "ant.xml";
    def.xml_option = true;
    def.frame_skip = 5;
    def.frame_skip_option = v5;
    def.options = CommonOptions(0.5);
    if (v5) {
      def.options.insert(def.options.begin(),
                         OptionDef::Float("forward_reward_weight", 1.0,
                                          "weight of the forward reward (x velocity)"));
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
    }
    def.make_spec = [v5](const Config& c, const mjModel& m, EnvSpec* spec) {
      MainBody(c, m, v5);
      int size = m.nq + m.nv - (c.GetBool("exclude_current_positions_from_observation") ? 2 : 0);
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
    def.make_env = [v5](const EnvSpec& spec, std::uint64_t seed,
                        std::shared_ptr<const mjModel> model) -> std::unique_ptr<Env> {
      return std::make_unique<AntEnv>(spec, seed, std::move(model), v5);
    };
    AddMujocoTask(registry, asset_dir, std::move(def));
  }
}

}  // namespace envpool_core::mujoco
