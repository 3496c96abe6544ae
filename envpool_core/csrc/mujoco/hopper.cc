// Hopper-v4 / Hopper-v5 (gymnasium/envs/mujoco/hopper_v4.py, hopper_v5.py): a
// planar walker whose health also bounds the rest of its state.
#include <limits>

#include "mujoco/planar_walker.h"

namespace envpool_core::mujoco {

namespace {

class HopperEnv final : public PlanarWalkerEnv {
 public:
  HopperEnv(const EnvSpec& spec, std::uint64_t seed, std::shared_ptr<const mjModel> model, bool v5)
      : PlanarWalkerEnv(spec, seed, std::move(model), v5),
        healthy_state_min_(spec.config.GetFloat("healthy_state_min")),
        healthy_state_max_(spec.config.GetFloat("healthy_state_max")) {}

 private:
  // Also state_vector()[2:] (qpos[2:] and all of qvel) strictly inside the
  // state range.
  bool IsHealthy() const override {
    for (int i = 2; i < model_->nq; ++i) {
      if (!InStateRange(data_->qpos[i])) return false;
    }
    for (int i = 0; i < model_->nv; ++i) {
      if (!InStateRange(data_->qvel[i])) return false;
    }
    return PlanarWalkerEnv::IsHealthy();
  }

  bool InStateRange(double x) const { return healthy_state_min_ < x && x < healthy_state_max_; }

  double healthy_state_min_, healthy_state_max_;
};

}  // namespace

void RegisterHopper(TaskRegistry& registry, const std::string& asset_dir) {
  for (bool v5 : {false, true}) {
    std::vector<OptionDef> health = {
        OptionDef::Float("healthy_state_min", -100.0,
                         "healthy while every qpos[2:] and qvel entry is > this"),
        OptionDef::Float("healthy_state_max", 100.0,
                         "healthy while every qpos[2:] and qvel entry is < this"),
    };
    for (auto& o : TorsoRangeOptions(0.7, std::numeric_limits<double>::infinity(), -0.2, 0.2)) {
      health.push_back(std::move(o));
    }
    MujocoTaskDef def = PlanarWalkerTaskDef("Hopper", v5, "hopper.xml", std::move(health));
    def.make_env = EnvFactory<HopperEnv>(v5);
    AddMujocoTask(registry, asset_dir, std::move(def));
  }
}

}  // namespace envpool_core::mujoco
