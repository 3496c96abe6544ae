// The ball-in-cup domain (dm_control/suite/ball_in_cup.py): catch.
#include <cmath>

#include "dm_control/suite_env.h"
#include "dm_control/suite_task.h"
#include "mujoco/model_names.h"

namespace envpool_core::dm_control {

namespace {

class BallInCupEnv final : public SuiteEnv {
 public:
  BallInCupEnv(const EnvSpec& spec, std::uint64_t seed, SuiteModel model)
      : SuiteEnv(spec, seed, std::move(model)),
        ball_x_(model_->jnt_qposadr[mujoco::NameId(model_, mjOBJ_JOINT, "ball_x")]),
        ball_z_(model_->jnt_qposadr[mujoco::NameId(model_, mjOBJ_JOINT, "ball_z")]),
        target_(mujoco::NameId(model_, mjOBJ_SITE, "target")),
        ball_body_(mujoco::NameId(model_, mjOBJ_BODY, "ball")),
        ball_geom_(mujoco::NameId(model_, mjOBJ_GEOM, "ball")) {}

 private:
  void InitializeEpisode() override {
    // The ball anywhere above the cup that does not touch it.
    do {
      data_->qpos[ball_x_] = random_.Uniform(-0.2, 0.2);
      data_->qpos[ball_z_] = random_.Uniform(0.2, 0.5);
      ForwardWithoutActuation();
    } while (data_->ncon > 0);
  }

  void WriteObservation(OutputRow& row) override {
    mju_copy(row.Obs<double>(0), data_->qpos, model_->nq);
    mju_copy(row.Obs<double>(1), data_->qvel, model_->nv);
  }

  double Reward() override {
    // 1 when the ball is inside the target site in x and z.
    double ball_size = model_->geom_size[3 * ball_geom_];
    for (int axis : {0, 2}) {
      double to_target =
          std::fabs(data_->site_xpos[3 * target_ + axis] - data_->xpos[3 * ball_body_ + axis]);
      if (!(to_target < model_->site_size[3 * target_ + axis] - ball_size)) return 0.0;
    }
    return 1.0;
  }

  int ball_x_, ball_z_, target_, ball_body_, ball_geom_;
};

}  // namespace

void RegisterBallInCup(TaskRegistry& registry, const std::string& suite_dir) {
  // Control timestep 0.02 s over the model's 0.002 s.
  AddSuiteTask(registry, suite_dir,
               {"ball_in_cup", "catch", 10, {{"position", {4}}, {"velocity", {4}}},
                SuiteEnvFactory<BallInCupEnv>()});
}

}  // namespace envpool_core::dm_control
