// The quadruped domain (dm_control/suite/quadruped.py): walk and run. dm_control
// builds their model by editing quadruped.xml (make_model: a floor sized to the
// task, without the walls, ball, target, terrain and rangefinders); so does this
// file, to the same model.
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "dm_control/rewards.h"
#include "dm_control/suite_env.h"
#include "dm_control/suite_task.h"
#include "dm_control/xml_edit.h"
#include "mujoco/mujoco_errors.h"

namespace envpool_core::dm_control {

namespace {

constexpr int kMaxHeightAttempts = 10000;

std::string MakeQuadrupedXml(std::string xml, double floor_size) {
  const char* what = "quadruped";
  // Python's f'{floor_size}' of a float: the value is what matters to MuJoCo.
  SetAttribute(&xml, "<geom name=\"floor\"", "size",
               XmlNumber(floor_size) + " " + XmlNumber(floor_size) + " .5", what);
  for (const char* wall : {"wall_px", "wall_py", "wall_nx", "wall_ny"}) {
    RemoveEmptyElement(&xml, std::string("<geom name=\"") + wall + "\"", what);
  }
  RemoveBody(&xml, "<body name=\"ball\"", what);
  RemoveEmptyElement(&xml, "<site name=\"target\"", what);
  RemoveEmptyElement(&xml, "<geom name=\"terrain\"", what);
  while (xml.find("<rangefinder ") != std::string::npos) {
    RemoveEmptyElement(&xml, "<rangefinder ", what);
  }
  return xml;
}

// Observation arrays (EnvPool's for every task of the domain; walk and run
// fill the first five, the others are zeros, as EnvPool's).
enum Obs { kEgocentric, kTorsoVelocity, kTorsoUpright, kImu, kForceTorque, kOrigin,
           kRangefinder, kBallState, kTargetPosition };

class QuadrupedEnv final : public SuiteEnv {
 public:
  QuadrupedEnv(const EnvSpec& spec, std::uint64_t seed, SuiteModel model, double desired_speed)
      : SuiteEnv(spec, seed, std::move(model)),
        desired_speed_(desired_speed),
        root_(model_->jnt_qposadr[mj_name2id(model_, mjOBJ_JOINT, "root")]),
        torso_(mj_name2id(model_, mjOBJ_BODY, "torso")),
        velocimeter_(SensorAdr("velocimeter")) {
    for (int j = 0; j < model_->njnt; ++j) {
      if (model_->jnt_type[j] == mjJNT_HINGE) hinges_.push_back(j);
    }
    // Sensors by type, in sensor order (dm_control's np.isin over sensor_type).
    for (int s = 0; s < model_->nsensor; ++s) {
      int type = model_->sensor_type[s];
      if (type == mjSENS_GYRO || type == mjSENS_ACCELEROMETER) imu_.push_back(s);
      if (type == mjSENS_FORCE || type == mjSENS_TORQUE) force_torque_.push_back(s);
    }
  }

 private:
  void InitializeEpisode() override {
    double orientation[4];
    for (double& q : orientation) q = random_.StandardNormal();
    double norm = Norm(orientation, 4);
    for (double& q : orientation) q /= norm;
    // _find_non_contacting_height: from inside the floor up in 1 cm steps until
    // nothing touches, each try from a reset state (physics.reset_context()).
    double z = 0.0;
    for (int attempt = 1;; ++attempt) {
      mujoco::ResetPhysics(model_, data_);
      ForwardWithoutActuation();
      data_->qpos[root_] = 0.0;
      data_->qpos[root_ + 1] = 0.0;
      data_->qpos[root_ + 2] = z;
      for (int i = 0; i < 4; ++i) data_->qpos[root_ + 3 + i] = orientation[i];
      ForwardWithoutActuation();
      if (data_->ncon == 0) break;
      z += 0.01;
      if (attempt > kMaxHeightAttempts) {
        throw std::runtime_error("quadruped: no non-contacting start height found");
      }
    }
  }

  double TorsoUpright() const { return data_->xmat[9 * torso_ + 8]; }

  // The sensors' values, in order, through `f`.
  template <typename F>
  double* WriteSensors(const std::vector<int>& sensors, double* out, F f) const {
    for (int s : sensors) {
      for (int k = 0; k < model_->sensor_dim[s]; ++k) {
        *out++ = f(data_->sensordata[model_->sensor_adr[s] + k]);
      }
    }
    return out;
  }

  void WriteObservation(OutputRow& row) override {
    double* ego = row.Obs<double>(kEgocentric);
    for (int j : hinges_) *ego++ = data_->qpos[model_->jnt_qposadr[j]];
    for (int j : hinges_) *ego++ = data_->qvel[model_->jnt_dofadr[j]];
    mju_copy(ego, data_->act, model_->na);
    mju_copy(row.Obs<double>(kTorsoVelocity), data_->sensordata + velocimeter_, 3);
    *row.Obs<double>(kTorsoUpright) = TorsoUpright();
    WriteSensors(imu_, row.Obs<double>(kImu), [](double x) { return x; });
    WriteSensors(force_torque_, row.Obs<double>(kForceTorque),
                 [](double x) { return std::asinh(x); });
    mju_zero(row.Obs<double>(kOrigin), 3);
    mju_zero(row.Obs<double>(kRangefinder), 20);
    mju_zero(row.Obs<double>(kBallState), 9);
    mju_zero(row.Obs<double>(kTargetPosition), 3);
  }

  double Reward() override {
    // _upright_reward(deviation_angle=0): cos(0) = 1.
    double upright = Tolerance(TorsoUpright(), 1.0, kInf, 2.0, Sigmoid::kLinear, 0.0);
    double move = Tolerance(data_->sensordata[velocimeter_], desired_speed_, kInf,
                            desired_speed_, Sigmoid::kLinear, 0.5);
    return upright * move;
  }

  double desired_speed_;
  int root_, torso_, velocimeter_;
  std::vector<int> hinges_, imu_, force_torque_;
};

}  // namespace

void RegisterQuadruped(TaskRegistry& registry, const std::string& suite_dir) {
  // Control timestep 0.02 s over the model's 0.005 s; the floor is the time
  // limit (20 s) times the speed.
  std::vector<ObsArray> obs = {{"egocentric_state", {44}}, {"torso_velocity", {3}},
                               {"torso_upright", {}},      {"imu", {6}},
                               {"force_torque", {24}},     {"origin", {3}},
                               {"rangefinder", {20}},      {"ball_state", {9}},
                               {"target_position", {3}}};
  for (auto [name, speed] : {std::pair{"walk", 0.5}, std::pair{"run", 5.0}}) {
    AddSuiteTask(registry, suite_dir,
                 {"quadruped", name, 4, obs, SuiteEnvFactory<QuadrupedEnv>(speed)},
                 [floor = 20 * speed](const std::string& xml) {
                   return MakeQuadrupedXml(xml, floor);
                 });
  }
}

}  // namespace envpool_core::dm_control
