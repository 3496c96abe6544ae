// The stacker domain (dm_control/suite/stacker.py): stack_2 and stack_4, the
// manipulator's arm stacking boxes onto a target. dm_control builds each task's
// model by removing the boxes it does not use from stacker.xml (make_model); so
// does this file, to the same model. The target moves each episode (in the
// model: each env has a model of its own).
#include <algorithm>
#include <array>
#include <cmath>
#include <string>
#include <vector>

#include "dm_control/planar_arm.h"
#include "dm_control/rewards.h"
#include "dm_control/suite_env.h"
#include "dm_control/suite_task.h"
#include "dm_control/xml_edit.h"
#include "mujoco/model_names.h"

namespace envpool_core::dm_control {

namespace {

constexpr double kClose = 0.01;

std::string MakeStackerXml(std::string xml, int n_boxes) {
  for (int b = n_boxes; b < 4; ++b) {
    RemoveBody(&xml, "<body name=\"box" + std::to_string(b) + "\"", "stacker");
  }
  return xml;
}

class StackerEnv final : public SuiteEnv {
 public:
  StackerEnv(const EnvSpec& spec, std::uint64_t seed, SuiteModel model, int n_boxes)
      : SuiteEnv(spec, seed, std::move(model), /*private_model=*/true),
        n_boxes_(n_boxes),
        target_body_(mujoco::NameId(model_, mjOBJ_BODY, "target")),
        target_geom_(mujoco::NameId(model_, mjOBJ_GEOM, "target")),
        target_site_(mujoco::NameId(model_, mjOBJ_SITE, "target")),
        grasp_(mujoco::NameId(model_, mjOBJ_SITE, "grasp")),
        hand_(mujoco::NameId(model_, mjOBJ_BODY, "hand")),
        arm_(model_) {
    for (int b = 0; b < n_boxes; ++b) {
      std::string box = "box" + std::to_string(b);
      boxes_.push_back(mujoco::NameId(model_, mjOBJ_BODY, box.c_str()));
      box_sites_.push_back(mujoco::NameId(model_, mjOBJ_SITE, box.c_str()));
      for (const char* dim : {"_x", "_y", "_z"}) {
        box_joints_.push_back(mujoco::NameId(model_, mjOBJ_JOINT, (box + dim).c_str()));
      }
    }
  }

 private:
  double& Qpos(int joint) { return data_->qpos[model_->jnt_qposadr[joint]]; }

  void InitializeEpisode() override {
    do {
      arm_.RandomizeJoints(model_, data_, random_);
      auto target_height = static_cast<double>(2 * random_.RandInt(n_boxes_) + 1);
      double box_size = model_->geom_size[3 * target_geom_];
      private_model_->body_pos[3 * target_body_ + 2] = box_size * target_height;
      private_model_->body_pos[3 * target_body_] = random_.Uniform(-0.37, 0.37);
      for (int b = 0; b < n_boxes_; ++b) {
        // box_x, box_z, box_y (the hinge): dm_control's order.
        Qpos(box_joints_[3 * b]) = random_.Uniform(0.1, 0.3);
        Qpos(box_joints_[3 * b + 2]) = random_.Uniform(0.0, 0.7);
        Qpos(box_joints_[3 * b + 1]) = random_.Uniform(0.0, 2 * M_PI);
      }
      ForwardWithoutActuation();
    } while (data_->ncon > 0);
  }

  void WriteObservation(OutputRow& row) override {
    arm_.WriteObservation(model_, data_, row.Obs<double>(0), row.Obs<double>(1));
    double* touch = row.Obs<double>(2);
    for (int i = 0; i < model_->nsensordata; ++i) touch[i] = std::log1p(data_->sensordata[i]);
    BodyPose2d(data_, hand_, row.Obs<double>(3));
    double* box_pos = row.Obs<double>(4);
    for (int box : boxes_) {
      BodyPose2d(data_, box, box_pos);
      box_pos += 4;
    }
    double* box_vel = row.Obs<double>(5);
    for (int joint : box_joints_) *box_vel++ = data_->qvel[model_->jnt_dofadr[joint]];
    double* target_pos = row.Obs<double>(6);
    target_pos[0] = data_->xpos[3 * target_body_];
    target_pos[1] = data_->xpos[3 * target_body_ + 2];
  }

  double SiteDistance(int a, int b) const {
    double d[3];
    mju_sub3(d, data_->site_xpos + 3 * a, data_->site_xpos + 3 * b);
    return Norm(d, 3);
  }

  double Reward() override {
    double box_size = model_->geom_size[3 * target_geom_];
    double min_distance = kInf;
    for (int site : box_sites_) min_distance = std::min(min_distance, SiteDistance(site, target_site_));
    double box_is_close = Tolerance(min_distance, 0.0, 0.0, 2 * box_size);
    double hand_is_far = Tolerance(SiteDistance(grasp_, target_site_), 0.1, kInf, kClose);
    return box_is_close * hand_is_far;
  }

  int n_boxes_;
  int target_body_, target_geom_, target_site_, grasp_, hand_;
  PlanarArm arm_;
  std::vector<int> boxes_, box_sites_, box_joints_;
};

}  // namespace

void RegisterStacker(TaskRegistry& registry, const std::string& suite_dir) {
  // Control timestep 0.01 s over the model's 0.001 s.
  for (int n : {2, 4}) {
    AddSuiteTask(registry, suite_dir,
                 {"stacker", "stack_" + std::to_string(n), 10,
                  {{"arm_pos", {8, 2}}, {"arm_vel", {8}}, {"touch", {5}}, {"hand_pos", {4}},
                   {"box_pos", {n, 4}}, {"box_vel", {3 * n}}, {"target_pos", {2}}},
                  SuiteEnvFactory<StackerEnv>(n)},
                 [n](const std::string& xml) { return MakeStackerXml(xml, n); });
  }
}

}  // namespace envpool_core::dm_control
