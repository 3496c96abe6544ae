// The dog domain (dm_control/suite/dog.py): stand, walk, trot, run and fetch.
// dm_control builds the model by editing dog.xml (make_model: a floor sized to
// the task; for all but fetch, without the ball, target, walls and the
// cameras that follow the ball and the head) and loads it with the meshes and
// textures of dog_assets; so does this file, from the installed package.
#include <algorithm>
#include <array>
#include <cmath>
#include <string>
#include <vector>

#include "dm_control/rewards.h"
#include "dm_control/suite_env.h"
#include "dm_control/suite_task.h"
#include "dm_control/xml_edit.h"
#include "mujoco/model_names.h"

namespace envpool_core::dm_control {

namespace {

constexpr double kStandHeightFraction = 0.9;  // of the default pose's heights
constexpr double kTimeLimit = 15;             // seconds: the floors' size is it times the speed
constexpr double kFetchFloorSize = 10;

// remove_ball: every task but fetch.
std::string MakeDogXml(std::string xml, double floor_size, bool remove_ball) {
  const char* what = "dog";
  // str(floor_size) + ' ' + ...: the value is what matters to MuJoCo.
  SetAttribute(&xml, "<geom name=\"floor\"", "size",
               XmlNumber(floor_size) + " " + XmlNumber(floor_size) + " .1", what);
  if (remove_ball) {
    RemoveBody(&xml, "<body name=\"ball\"", what);
    RemoveEmptyElement(&xml, "<geom name=\"target\"", what);
    RemoveEmptyElement(&xml, "<camera name=\"ball\"", what);
    RemoveEmptyElement(&xml, "<camera name=\"head\"", what);
    for (const char* wall : {"wall_px", "wall_nx", "wall_py", "wall_ny"}) {
      RemoveEmptyElement(&xml, std::string("<geom name=\"") + wall + "\"", what);
    }
  }
  return xml;
}

// Observation arrays, EnvPool's for every task of the domain (its spelling
// "joint_velocites" is dm_control's); fetch fills the last two, the others
// leave them zeros, as EnvPool's.
enum Obs { kJointAngles, kJointVelocities, kTorsoPelvisHeight, kZProjection, kTorsoComVelocity,
           kInertialSensors, kFootForces, kTouchSensors, kActuatorState, kBallState,
           kTargetPosition };

class DogEnv final : public SuiteEnv {
 public:
  // move_speed 0: stand, or fetch with `fetch`.
  DogEnv(const EnvSpec& spec, std::uint64_t seed, SuiteModel model, double move_speed, bool fetch)
      : SuiteEnv(spec, seed, std::move(model)),
        move_speed_(move_speed),
        fetch_(fetch),
        root_(model_->jnt_qposadr[mujoco::NameId(model_, mjOBJ_JOINT, "root")]),
        torso_(Body("torso")),
        pelvis_(Body("pelvis")),
        skull_(Body("skull")),
        torso_linvel_(SensorAdr("torso_linvel")),
        floor_(mujoco::NameId(model_, mjOBJ_GEOM, "floor")) {
    for (int j = 0; j < model_->njnt; ++j) {
      if (model_->jnt_type[j] == mjJNT_HINGE) hinges_.push_back(j);
    }
    for (const char* s : {"accelerometer", "velocimeter", "gyro"}) inertial_.push_back(Sensor(s));
    for (const char* s : {"foot_L", "foot_R", "hand_L", "hand_R"}) foot_forces_.push_back(Sensor(s));
    for (const char* s : {"palm_L", "palm_R", "sole_L", "sole_R"}) touch_.push_back(Sensor(s));
    if (fetch_) {
      int ball_root = mujoco::NameId(model_, mjOBJ_JOINT, "ball_root");
      ball_root_ = model_->jnt_qposadr[ball_root];
      ball_root_dof_ = model_->jnt_dofadr[ball_root];
      ball_ = mujoco::NameId(model_, mjOBJ_GEOM, "ball");
      target_ = mujoco::NameId(model_, mjOBJ_GEOM, "target");
      head_ = mujoco::NameId(model_, mjOBJ_SITE, "head");
      upper_bite_ = mujoco::NameId(model_, mjOBJ_SITE, "upper_bite");
      lower_bite_ = mujoco::NameId(model_, mjOBJ_SITE, "lower_bite");
    }
  }

 private:
  int Body(const char* name) const { return mujoco::NameId(model_, mjOBJ_BODY, name); }
  int Sensor(const char* name) const { return mujoco::NameId(model_, mjOBJ_SENSOR, name); }

  void InitializeEpisode() override {
    // dm_control resets the physics here again (physics.reset()): the state is
    // already that, so the heights of the default pose are read from it.
    stand_height_[0] = data_->xpos[3 * torso_ + 2] * kStandHeightFraction;
    stand_height_[1] = data_->xpos[3 * pelvis_ + 2] * kStandHeightFraction;
    body_weight_ = -model_->opt.gravity[2] * model_->body_subtreemass[torso_];
    // A random heading, horizontal root velocities and actuator states.
    double azimuth = random_.Uniform(0, 2 * M_PI);
    double* quat = data_->qpos + root_ + 3;
    quat[0] = std::cos(azimuth / 2);
    quat[1] = quat[2] = 0.0;
    quat[3] = std::sin(azimuth / 2);
    data_->qvel[0] = 2 * random_.StandardNormal();
    data_->qvel[1] = 2 * random_.StandardNormal();
    data_->qvel[5] = 2 * random_.StandardNormal();
    for (int i = 0; i < model_->nu; ++i) {
      data_->act[i] = random_.Uniform(model_->actuator_ctrlrange[2 * i],
                                      model_->actuator_ctrlrange[2 * i + 1]);
    }
    if (!fetch_) return;
    // The ball thrown from 3/4 of the floor's half size towards the centre, at
    // an upward angle (the speed that reaches a random height), with noise.
    double radius = 0.75 * model_->geom_size[3 * floor_];
    double ball_azimuth = random_.Uniform(0, 2 * M_PI);
    data_->qpos[ball_root_] = radius * std::sin(ball_azimuth);
    data_->qpos[ball_root_ + 1] = radius * std::cos(ball_azimuth);
    data_->qpos[ball_root_ + 2] = 0.05;
    double vertical_height = random_.Uniform(0, 3);
    double gravity = -model_->opt.gravity[2];
    double vertical_velocity = std::sqrt(2 * gravity * vertical_height);
    double horizontal_speed = random_.Uniform(0, 5);
    double direction_x = -std::sin(ball_azimuth) + 0.05 * random_.StandardNormal();
    double direction_y = -std::cos(ball_azimuth) + 0.05 * random_.StandardNormal();
    data_->qvel[ball_root_dof_] = horizontal_speed * direction_x;
    data_->qvel[ball_root_dof_ + 1] = horizontal_speed * direction_y;
    data_->qvel[ball_root_dof_ + 2] = vertical_velocity;
  }

  // v . R for a frame R (row-major 3x3), summed as numpy's dot (fused
  // multiply-adds, in order).
  static void InFrame(const double* v, const double* frame, double* out) {
    for (int j = 0; j < 3; ++j) {
      double s = 0.0;
      for (int i = 0; i < 3; ++i) s = std::fma(v[i], frame[3 * i + j], s);
      out[j] = s;
    }
  }

  double* WriteSensors(const std::vector<int>& sensors, double* out) const {
    for (int s : sensors) {
      mju_copy(out, data_->sensordata + model_->sensor_adr[s], model_->sensor_dim[s]);
      out += model_->sensor_dim[s];
    }
    return out;
  }

  void TorsoComVelocity(double* out) const {
    InFrame(data_->sensordata + torso_linvel_, data_->xmat + 9 * torso_, out);
  }

  void WriteObservation(OutputRow& row) override {
    double* angles = row.Obs<double>(kJointAngles);
    double* velocities = row.Obs<double>(kJointVelocities);
    for (int j : hinges_) {
      *angles++ = data_->qpos[model_->jnt_qposadr[j]];
      *velocities++ = data_->qvel[model_->jnt_dofadr[j]];
    }
    double* heights = row.Obs<double>(kTorsoPelvisHeight);
    heights[0] = data_->xpos[3 * torso_ + 2];
    heights[1] = data_->xpos[3 * pelvis_ + 2];
    double* z = row.Obs<double>(kZProjection);
    for (int body : {skull_, torso_, pelvis_}) {
      mju_copy3(z, data_->xmat + 9 * body + 6);  // zx, zy, zz
      z += 3;
    }
    TorsoComVelocity(row.Obs<double>(kTorsoComVelocity));
    WriteSensors(inertial_, row.Obs<double>(kInertialSensors));
    WriteSensors(foot_forces_, row.Obs<double>(kFootForces));
    WriteSensors(touch_, row.Obs<double>(kTouchSensors));
    mju_copy(row.Obs<double>(kActuatorState), data_->act, model_->na);
    if (!fetch_) {
      mju_zero(row.Obs<double>(kBallState), 6);
      mju_zero(row.Obs<double>(kTargetPosition), 3);
      return;
    }
    // The ball's position and velocity, and the target's position, relative
    // to the head site, in its frame.
    const double* head_pos = data_->site_xpos + 3 * head_;
    const double* head_frame = data_->site_xmat + 9 * head_;
    double to_ball[3], head_vel[6], ball_vel[6], to_ball_vel[3], to_target[3];
    mju_sub3(to_ball, data_->geom_xpos + 3 * ball_, head_pos);
    // mj_objectVelocity gives (angular, linear): dm_control keeps the linear.
    mj_objectVelocity(model_, data_, mjOBJ_SITE, head_, head_vel, 0);
    mj_objectVelocity(model_, data_, mjOBJ_GEOM, ball_, ball_vel, 0);
    mju_sub3(to_ball_vel, ball_vel + 3, head_vel + 3);
    double* ball_state = row.Obs<double>(kBallState);
    InFrame(to_ball, head_frame, ball_state);
    InFrame(to_ball_vel, head_frame, ball_state + 3);
    mju_sub3(to_target, data_->geom_xpos + 3 * target_, head_pos);
    InFrame(to_target, head_frame, row.Obs<double>(kTargetPosition));
  }

  double Distance(const double* a, const double* b) const {
    double d[3];
    mju_sub3(d, a, b);
    return Norm(d, 3);
  }

  // The factors of dm_control's reward, multiplied in order (np.prod).
  double Reward() override {
    const double min_upright_cosine = std::cos(30 * (M_PI / 180));  // np.cos(np.deg2rad(30))
    double torso_height = data_->xpos[3 * torso_ + 2];
    double pelvis_height = data_->xpos[3 * pelvis_ + 2];
    double reward = Tolerance(torso_height, stand_height_[0], kInf, stand_height_[0]);
    reward *= Tolerance(pelvis_height, stand_height_[1], kInf, stand_height_[1]);
    for (int body : {skull_, torso_, pelvis_}) {
      reward *= Tolerance(data_->xmat[9 * body + 8], min_upright_cosine, kInf,
                          min_upright_cosine + 1, Sigmoid::kLinear, 0.0);
    }
    // The touch sensors' sum, in order (numpy's sum of four values).
    double touch = 0.0;
    for (int s : touch_) touch += data_->sensordata[model_->sensor_adr[s]];
    reward *= Tolerance(touch, body_weight_, kInf, body_weight_, Sigmoid::kLinear, 0.9);
    if (move_speed_ > 0.0) {
      double velocity[3];
      TorsoComVelocity(velocity);
      double forward = Tolerance(velocity[0], move_speed_, 2 * move_speed_,
                                 std::max(1.0, move_speed_), Sigmoid::kLinear, 0.0);
      reward *= (4 * forward + 1) / 5;
    }
    if (fetch_) {
      const double* ball = data_->geom_xpos + 3 * ball_;
      double bite_radius = model_->site_size[3 * upper_bite_];
      double to_mouth = 0.5 * (Distance(ball, data_->site_xpos + 3 * upper_bite_) +
                               Distance(ball, data_->site_xpos + 3 * lower_bite_));
      double reach_ball = Tolerance(to_mouth, 0.0, bite_radius, 2, Sigmoid::kReciprocal);
      reach_ball = (6 * reach_ball + 1) / 7;
      double target_radius = model_->geom_size[3 * target_];
      double to_target = Distance(ball, data_->geom_xpos + 3 * target_);
      double near_target = Tolerance(to_target, 0.0, target_radius, model_->geom_size[3 * floor_],
                                     Sigmoid::kReciprocal);
      double fetch_ball = (near_target + 1) / 2;
      if (to_target < 2 * target_radius) reach_ball = 1;  // let go of a fetched ball
      reward *= reach_ball;
      reward *= fetch_ball;
    }
    return reward;
  }

  double move_speed_;
  bool fetch_;
  int root_, torso_, pelvis_, skull_, torso_linvel_, floor_;
  int ball_root_ = -1, ball_root_dof_ = -1, ball_ = -1, target_ = -1, head_ = -1;
  int upper_bite_ = -1, lower_bite_ = -1;
  std::vector<int> hinges_, inertial_, foot_forces_, touch_;
  std::array<double, 2> stand_height_{};
  double body_weight_ = 0.0;
};

}  // namespace

void RegisterDog(TaskRegistry& registry, const std::string& suite_dir) {
  // Control timestep 0.015 s over the model's 0.005 s.
  std::vector<ObsArray> obs = {{"joint_angles", {73}},     {"joint_velocites", {73}},
                               {"torso_pelvis_height", {2}}, {"z_projection", {9}},
                               {"torso_com_velocity", {3}}, {"inertial_sensors", {9}},
                               {"foot_forces", {12}},       {"touch_sensors", {4}},
                               {"actuator_state", {38}},    {"ball_state", {6}},
                               {"target_position", {3}}};
  struct Task {
    const char* name;
    double move_speed;
    bool fetch;
  };
  for (Task t : {Task{"stand", 0.0, false}, Task{"walk", 1.0, false}, Task{"trot", 3.0, false},
                 Task{"run", 9.0, false}, Task{"fetch", 0.0, true}}) {
    // stand's floor is the walk's.
    double floor_size = t.fetch ? kFetchFloorSize : std::max(t.move_speed, 1.0) * kTimeLimit;
    SuiteTaskDef def{"dog", t.name, 3, obs, SuiteEnvFactory<DogEnv>(t.move_speed, t.fetch)};
    def.asset_dir = "dog_assets";
    AddSuiteTask(registry, suite_dir, std::move(def),
                 [floor_size, remove_ball = !t.fetch](const std::string& xml) {
                   return MakeDogXml(xml, floor_size, remove_ball);
                 });
  }
}

}  // namespace envpool_core::dm_control
