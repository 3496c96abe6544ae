// The manipulator domain (dm_control/suite/manipulator.py): bring a ball or a
// peg to a target, or insert it into a cup or a slot. dm_control builds each
// task's model by removing the props it does not use from manipulator.xml
// (make_model); so does this file, to the same model. The targets and
// receptacles move each episode (in the model: each env has a model of its own).
#include <array>
#include <cmath>
#include <string>

#include "dm_control/planar_arm.h"
#include "dm_control/rewards.h"
#include "dm_control/suite_env.h"
#include "dm_control/suite_task.h"
#include "dm_control/xml_edit.h"
#include "mujoco/model_names.h"

namespace envpool_core::dm_control {

namespace {

constexpr double kClose = 0.01;  // metres: closer than this is close
constexpr double kPInHand = 0.1;
constexpr double kPInTarget = 0.1;
constexpr std::array<const char*, 5> kTouchSensors = {
    "palm_touch", "finger_touch", "thumb_touch", "fingertip_touch", "thumbtip_touch"};

std::string MakeManipulatorXml(std::string xml, bool use_peg, bool insert) {
  for (const char* prop : {"ball", "target_ball", "cup", "peg", "target_peg", "slot"}) {
    std::string name = prop;
    bool used = use_peg ? (name == "peg" || name == "target_peg" || (insert && name == "slot"))
                        : (name == "ball" || name == "target_ball" || (insert && name == "cup"));
    if (!used) RemoveBody(&xml, "<body name=\"" + name + "\"", "manipulator");
  }
  return xml;
}

class ManipulatorEnv final : public SuiteEnv {
 public:
  ManipulatorEnv(const EnvSpec& spec, std::uint64_t seed, SuiteModel model, bool use_peg,
                 bool insert)
      : SuiteEnv(spec, seed, std::move(model), /*private_model=*/true),
        use_peg_(use_peg),
        insert_(insert),
        target_(Body(use_peg ? "target_peg" : "target_ball")),
        object_(Body(use_peg ? "peg" : "ball")),
        receptacle_(insert ? Body(use_peg ? "slot" : "cup") : -1),
        hand_(Body("hand")),
        grasp_(Site("grasp")),
        arm_(model_) {
    std::string object = use_peg ? "peg" : "ball";
    const char* dims[] = {"_x", "_z", "_y"};
    for (int j = 0; j < 3; ++j) object_joints_[j] = Joint((object + dims[j]).c_str());
    for (std::size_t s = 0; s < kTouchSensors.size(); ++s) touch_[s] = SensorAdr(kTouchSensors[s]);
    if (use_peg) {
      for (const char* site : {"peg_grasp", "grasp", "peg_pinch", "pinch", "peg", "target_peg",
                               "target_peg_tip", "peg_tip"}) {
        sites_.push_back(Site(site));
      }
    } else {
      sites_ = {Site("ball"), Site("target_ball")};
    }
  }

 private:
  int Body(const char* name) const { return mujoco::NameId(model_, mjOBJ_BODY, name); }
  int Site(const char* name) const { return mujoco::NameId(model_, mjOBJ_SITE, name); }
  int Joint(const char* name) const { return mujoco::NameId(model_, mjOBJ_JOINT, name); }
  double& Qpos(int joint) { return data_->qpos[model_->jnt_qposadr[joint]]; }

  void PlaceBody(int body, double x, double z, double angle) {
    private_model_->body_pos[3 * body] = x;
    private_model_->body_pos[3 * body + 2] = z;
    private_model_->body_quat[4 * body] = std::cos(angle / 2);
    private_model_->body_quat[4 * body + 2] = std::sin(angle / 2);
  }

  // np.random.choice of ['in_hand', 'in_target', 'uniform'] with their
  // probabilities: one random_sample against the normalised cumulative sums.
  int ChooseInitType() {
    double cdf[3] = {kPInHand, kPInHand + kPInTarget, 0.0};
    cdf[2] = cdf[1] + (1 - kPInHand - kPInTarget);
    for (double& c : cdf) c /= cdf[2];
    double u = random_.RandomSample();
    int index = 0;
    while (index < 3 && cdf[index] <= u) ++index;
    return index;
  }

  void WriteStartInfo(OutputRow& row, int first) const override {
    mju_copy(row.Info<double>(first), random_info_.data(), 8);
  }

  void InitializeEpisode() override {
    do {
      arm_.RandomizeJoints(model_, data_, random_);
      double target_x = random_.Uniform(-0.4, 0.4);
      double target_z = random_.Uniform(0.1, 0.4);
      double target_angle;
      if (insert_) {
        target_angle = random_.Uniform(-M_PI / 3, M_PI / 3);
        PlaceBody(receptacle_, target_x, target_z, target_angle);
      } else {
        target_angle = random_.Uniform(-M_PI, M_PI);
      }
      PlaceBody(target_, target_x, target_z, target_angle);
      double object_x, object_z, object_angle;
      double qvel_object_x = 0.0;
      int init_type = ChooseInitType();
      switch (init_type) {
        case 0: {  // in hand
          ForwardWithoutActuation();
          object_x = data_->site_xpos[3 * grasp_];
          object_z = data_->site_xpos[3 * grasp_ + 2];
          const double* grasp = data_->site_xmat + 9 * grasp_;
          object_angle = M_PI - std::atan2(grasp[6], grasp[0]);
          break;
        }
        case 1:  // in the target
          object_x = target_x;
          object_z = target_z;
          object_angle = target_angle;
          break;
        default:
          object_x = random_.Uniform(-0.5, 0.5);
          object_z = random_.Uniform(0.0, 0.7);
          object_angle = random_.Uniform(0.0, 2 * M_PI);
          qvel_object_x = random_.Uniform(-5, 5);
          data_->qvel[model_->jnt_dofadr[object_joints_[0]]] = qvel_object_x;
      }
      Qpos(object_joints_[0]) = object_x;
      Qpos(object_joints_[1]) = object_z;
      Qpos(object_joints_[2]) = object_angle;
      // EnvPool's test-build info; its init types are 0 uniform, 1 in the target, 2 in hand.
      random_info_ = {target_x, target_z, target_angle, static_cast<double>(2 - init_type),
                      object_x,  object_z, object_angle, qvel_object_x};
      ForwardWithoutActuation();
    } while (data_->ncon > 0);
  }

  void WriteObservation(OutputRow& row) override {
    arm_.WriteObservation(model_, data_, row.Obs<double>(0), row.Obs<double>(1));
    double* touch = row.Obs<double>(2);
    for (int adr : touch_) *touch++ = std::log1p(data_->sensordata[adr]);
    BodyPose2d(data_, hand_, row.Obs<double>(3));
    BodyPose2d(data_, object_, row.Obs<double>(4));
    double* object_vel = row.Obs<double>(5);
    for (int joint : object_joints_) *object_vel++ = data_->qvel[model_->jnt_dofadr[joint]];
    BodyPose2d(data_, target_, row.Obs<double>(6));
  }

  // Distance of sites_[a] and sites_[b], and whether it is close.
  double IsClose(int a, int b) const {
    double d[3];
    mju_sub3(d, data_->site_xpos + 3 * sites_[a], data_->site_xpos + 3 * sites_[b]);
    return Tolerance(Norm(d, 3), 0.0, kClose, 2 * kClose);
  }

  double Reward() override {
    if (!use_peg_) return IsClose(0, 1);
    double grasping = (IsClose(0, 1) + IsClose(2, 3)) / 2;
    double bringing = (IsClose(4, 5) + IsClose(6, 7)) / 2;
    return std::max(bringing, grasping / 3);
  }

  std::array<double, 8> random_info_{};
  bool use_peg_, insert_;
  int target_, object_, receptacle_, hand_, grasp_;
  PlanarArm arm_;
  std::array<int, 3> object_joints_{};
  std::array<int, kTouchSensors.size()> touch_{};
  std::vector<int> sites_;
};

}  // namespace

void RegisterManipulator(TaskRegistry& registry, const std::string& suite_dir) {
  // Control timestep 0.01 s over the model's 0.001 s.
  std::vector<ObsArray> obs = {{"arm_pos", {8, 2}},    {"arm_vel", {8}},   {"touch", {5}},
                               {"hand_pos", {4}},      {"object_pos", {4}}, {"object_vel", {3}},
                               {"target_pos", {4}}};
  struct Task {
    const char* name;
    bool use_peg, insert;
  };
  for (Task t : {Task{"bring_ball", false, false}, Task{"bring_peg", true, false},
                 Task{"insert_ball", false, true}, Task{"insert_peg", true, true}}) {
    AddSuiteTask(registry, suite_dir,
                 {"manipulator", t.name, 10, obs,
                  SuiteEnvFactory<ManipulatorEnv>(t.use_peg, t.insert), "",
                  {{"random_info", {8}}}},
                 [t](const std::string& xml) {
                   return MakeManipulatorXml(xml, t.use_peg, t.insert);
                 });
  }
}

}  // namespace envpool_core::dm_control
