// The quadruped domain (dm_control/suite/quadruped.py): walk, run, escape and
// fetch. dm_control builds their model by editing quadruped.xml (make_model:
// for walk, run and escape a floor sized to the task, without the walls, ball
// and target; for all but escape, without the terrain and rangefinders); so
// does this file, to the same model.
//
// Escape draws a new terrain each episode: a bowl times random bumps smoothed
// by scipy.ndimage.zoom (spline_zoom.h), written into the heightfield of the
// env's own model, as dm_control writes it into its model.
#include <algorithm>
#include <cmath>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "dm_control/rewards.h"
#include "dm_control/spline_zoom.h"
#include "dm_control/suite_env.h"
#include "dm_control/suite_task.h"
#include "dm_control/xml_edit.h"
#include "mujoco/mujoco_errors.h"
#include "mujoco/model_names.h"

namespace envpool_core::dm_control {

namespace {

constexpr int kMaxHeightAttempts = 10000;
// Escape's terrain: 0 maximally bumpy, 1 smooth; bumps `kBumpScale` metres apart.
constexpr double kTerrainSmoothness = 0.15;
constexpr double kBumpScale = 2;

enum class Task { kMove, kEscape, kFetch };

// floor_size 0: fetch's model (the file's floor, with walls and ball). Escape
// keeps the terrain and the rangefinders.
std::string MakeQuadrupedXml(std::string xml, double floor_size, bool escape) {
  const char* what = "quadruped";
  if (floor_size != 0.0) {
    // Python's f'{floor_size}' of a float: the value is what matters to MuJoCo.
    SetAttribute(&xml, "<geom name=\"floor\"", "size",
                 XmlNumber(floor_size) + " " + XmlNumber(floor_size) + " .5", what);
    for (const char* wall : {"wall_px", "wall_py", "wall_nx", "wall_ny"}) {
      RemoveEmptyElement(&xml, std::string("<geom name=\"") + wall + "\"", what);
    }
    RemoveBody(&xml, "<body name=\"ball\"", what);
    RemoveEmptyElement(&xml, "<site name=\"target\"", what);
  }
  if (escape) return xml;
  RemoveEmptyElement(&xml, "<geom name=\"terrain\"", what);
  while (xml.find("<rangefinder ") != std::string::npos) {
    RemoveEmptyElement(&xml, "<rangefinder ", what);
  }
  return xml;
}

// Observation arrays (EnvPool's for every task of the domain; walk and run
// fill the first five, escape also origin and rangefinder, fetch ball_state
// and target_position instead, the others are zeros, as EnvPool's).
enum Obs { kEgocentric, kTorsoVelocity, kTorsoUpright, kImu, kForceTorque, kOrigin,
           kRangefinder, kBallState, kTargetPosition };

class QuadrupedEnv final : public SuiteEnv {
 public:
  // desired_speed: walk's and run's.
  QuadrupedEnv(const EnvSpec& spec, std::uint64_t seed, SuiteModel model, Task task,
               double desired_speed)
      : SuiteEnv(spec, seed, std::move(model), /*private_model=*/task == Task::kEscape),
        desired_speed_(desired_speed),
        task_(task),
        fetch_(task == Task::kFetch),
        root_(model_->jnt_qposadr[mujoco::NameId(model_, mjOBJ_JOINT, "root")]),
        root_dof_(model_->jnt_dofadr[mujoco::NameId(model_, mjOBJ_JOINT, "root")]),
        torso_(mujoco::NameId(model_, mjOBJ_BODY, "torso")),
        velocimeter_(SensorAdr("velocimeter")),
        floor_(mujoco::NameId(model_, mjOBJ_GEOM, "floor")),
        workspace_(mujoco::NameId(model_, mjOBJ_SITE, "workspace")) {
    if (fetch_) {
      int ball_root = mujoco::NameId(model_, mjOBJ_JOINT, "ball_root");
      ball_root_ = model_->jnt_qposadr[ball_root];
      ball_root_dof_ = model_->jnt_dofadr[ball_root];
      ball_ = mujoco::NameId(model_, mjOBJ_BODY, "ball");
      ball_geom_ = mujoco::NameId(model_, mjOBJ_GEOM, "ball");
      target_ = mujoco::NameId(model_, mjOBJ_SITE, "target");
    }
    if (task_ == Task::kEscape) MakeTerrainBuffers();
    for (int j = 0; j < model_->njnt; ++j) {
      if (model_->jnt_type[j] == mjJNT_HINGE) hinges_.push_back(j);
    }
    // Sensors by type, in sensor order (dm_control's np.isin over sensor_type).
    for (int s = 0; s < model_->nsensor; ++s) {
      int type = model_->sensor_type[s];
      if (type == mjSENS_GYRO || type == mjSENS_ACCELEROMETER) imu_.push_back(s);
      if (type == mjSENS_FORCE || type == mjSENS_TORQUE) force_torque_.push_back(s);
      if (type == mjSENS_RANGEFINDER) rangefinders_.push_back(s);
    }
  }

 private:
  void InitializeEpisode() override {
    double orientation[4];
    double x = 0.0, y = 0.0;
    if (fetch_) {
      // A random heading, somewhere on the floor.
      double azimuth = random_.Uniform(0, 2 * M_PI);
      orientation[0] = std::cos(azimuth / 2);
      orientation[1] = orientation[2] = 0.0;
      orientation[3] = std::sin(azimuth / 2);
      double spawn_radius = 0.9 * model_->geom_size[3 * floor_];
      x = random_.Uniform(-spawn_radius, spawn_radius);
      y = random_.Uniform(-spawn_radius, spawn_radius);
      FindNonContactingHeight(orientation, x, y);
      data_->qpos[ball_root_] = random_.Uniform(-spawn_radius, spawn_radius);
      data_->qpos[ball_root_ + 1] = random_.Uniform(-spawn_radius, spawn_radius);
      data_->qpos[ball_root_ + 2] = 2;
      data_->qvel[ball_root_dof_] = 5 * random_.StandardNormal();
      data_->qvel[ball_root_dof_ + 1] = 5 * random_.StandardNormal();
      return;
    }
    if (task_ == Task::kEscape) DrawTerrain();
    for (double& q : orientation) q = random_.StandardNormal();
    double norm = Norm(orientation, 4);
    for (double& q : orientation) q /= norm;
    FindNonContactingHeight(orientation, x, y);
  }

  // The heightfield's square size, the bowl and the buffers of the bumps.
  void MakeTerrainBuffers() {
    const int res = model_->hfield_nrow[0];
    if (model_->nhfield != 1 || model_->hfield_ncol[0] != res) {
      throw std::invalid_argument("quadruped escape: expected one square heightfield");
    }
    // int(terrain_size / bump_scale) bumps a side over the heightfield's 2 * size.
    const double terrain_size = 2 * model_->hfield_size[0];
    bump_res_ = static_cast<int>(terrain_size / kBumpScale);
    zoom_ = std::make_unique<SplineZoom>(bump_res_, bump_res_,
                                         res / static_cast<double>(bump_res_));
    if (zoom_->out_rows() != res) {
      throw std::invalid_argument("quadruped escape: the zoomed bumps miss the heightfield");
    }
    bumps_.resize(static_cast<std::size_t>(bump_res_) * bump_res_);
    smooth_bumps_.resize(static_cast<std::size_t>(res) * res);
    // The sinusoidal bowl, np.ogrid[-1:1:res*1j] per axis (i * step - 1) for
    // the distance from the centre, clipped to [0.04, 1].
    bowl_.resize(static_cast<std::size_t>(res) * res);
    const double step = 2.0 / static_cast<double>(res - 1);
    for (int i = 0; i < res; ++i) {
      double row = static_cast<double>(i) * step + -1.0;
      for (int j = 0; j < res; ++j) {
        double col = static_cast<double>(j) * step + -1.0;
        double radius = std::min(std::max(std::sqrt(col * col + row * row), 0.04), 1.0);
        bowl_[static_cast<std::size_t>(i) * res + j] = .5 - std::cos(2 * M_PI * radius) / 2;
      }
    }
  }

  // Escape's terrain: the bowl times bumps uniform in [smoothness, 1), zoomed
  // to the heightfield's resolution; MuJoCo keeps it as float32.
  void DrawTerrain() {
    for (double& b : bumps_) b = random_.Uniform(kTerrainSmoothness, 1);
    zoom_->Apply(bumps_.data(), smooth_bumps_.data());
    float* heights = private_model_->hfield_data + model_->hfield_adr[0];
    for (std::size_t k = 0; k < bowl_.size(); ++k) {
      heights[k] = static_cast<float>(bowl_[k] * smooth_bumps_[k]);
    }
    HeightFieldsChanged();
  }

  // _find_non_contacting_height: from inside the floor up in 1 cm steps until
  // nothing touches, each try from a reset state (physics.reset_context()).
  void FindNonContactingHeight(const double* orientation, double x, double y) {
    double z = 0.0;
    for (int attempt = 1;; ++attempt) {
      mujoco::ResetPhysics(model_, data_);
      ForwardWithoutActuation();
      data_->qpos[root_] = x;
      data_->qpos[root_ + 1] = y;
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
    if (task_ == Task::kEscape) {
      // The origin in the torso's frame, and the rangefinders' readings
      // squashed (1 where a ray hits nothing).
      double origin[3];
      InTorsoFrame(data_->xpos + 3 * torso_, origin);
      double* out = row.Obs<double>(kOrigin);
      for (double o : origin) *out++ = -o;
      WriteSensors(rangefinders_, row.Obs<double>(kRangefinder),
                   [](double x) { return x == -1.0 ? 1.0 : std::tanh(x); });
    } else {
      mju_zero(row.Obs<double>(kOrigin), 3);
      mju_zero(row.Obs<double>(kRangefinder), 20);
    }
    if (!fetch_) {
      mju_zero(row.Obs<double>(kBallState), 9);
      mju_zero(row.Obs<double>(kTargetPosition), 3);
      return;
    }
    // The ball's position, velocity and spin, and the target, in the torso's frame.
    const double* torso_pos = data_->xpos + 3 * torso_;
    double rows[4][3];
    mju_sub3(rows[0], data_->xpos + 3 * ball_, torso_pos);
    mju_sub3(rows[1], data_->qvel + ball_root_dof_, data_->qvel + root_dof_);
    mju_copy3(rows[2], data_->qvel + ball_root_dof_ + 3);
    mju_sub3(rows[3], data_->site_xpos + 3 * target_, torso_pos);
    double* ball_state = row.Obs<double>(kBallState);
    for (int r = 0; r < 3; ++r) InTorsoFrame(rows[r], ball_state + 3 * r);
    InTorsoFrame(rows[3], row.Obs<double>(kTargetPosition));
  }

  // v . R for the torso's R, summed as numpy's dot (fused multiply-adds, in order).
  void InTorsoFrame(const double* v, double* out) const {
    const double* frame = data_->xmat + 9 * torso_;
    for (int j = 0; j < 3; ++j) {
      double s = 0.0;
      for (int i = 0; i < 3; ++i) s = std::fma(v[i], frame[3 * i + j], s);
      out[j] = s;
    }
  }

  // The norm of the x, y part of `to - from`.
  static double PlanarDistance(const double* to, const double* from) {
    double d[2] = {to[0] - from[0], to[1] - from[1]};
    return Norm(d, 2);
  }

  // _upright_reward: 1 within `deviation` (the cosine of an angle) of upright,
  // falling linearly to 0 upside down.
  double UprightReward(double deviation) const {
    return Tolerance(TorsoUpright(), deviation, kInf, 1 + deviation, Sigmoid::kLinear, 0.0);
  }

  double Reward() override {
    if (task_ == Task::kEscape) {
      // Away from the origin, up to the heightfield's half size; upright
      // within 20 degrees (np.deg2rad(20): 20 * (pi / 180)).
      double terrain_size = model_->hfield_size[0];
      double escape = Tolerance(Norm(data_->site_xpos + 3 * workspace_, 3), terrain_size, kInf,
                                terrain_size, Sigmoid::kLinear, 0.0);
      return UprightReward(std::cos(20 * (M_PI / 180))) * escape;
    }
    // _upright_reward(deviation_angle=0): cos(0) = 1.
    double upright = UprightReward(1.0);
    if (!fetch_) {
      double move = Tolerance(data_->sensordata[velocimeter_], desired_speed_, kInf,
                              desired_speed_, Sigmoid::kLinear, 0.5);
      return upright * move;
    }
    double arena_radius = model_->geom_size[3 * floor_] * std::sqrt(2.0);
    double workspace_radius = model_->site_size[3 * workspace_];
    double ball_radius = model_->geom_size[3 * ball_geom_];
    const double* ball = data_->xpos + 3 * ball_;
    double reach = Tolerance(PlanarDistance(data_->site_xpos + 3 * workspace_, ball), 0.0,
                             workspace_radius + ball_radius, arena_radius, Sigmoid::kLinear,
                             0.0);
    double target_radius = model_->site_size[3 * target_];
    double fetch = Tolerance(PlanarDistance(data_->site_xpos + 3 * target_, ball), 0.0,
                             target_radius, arena_radius, Sigmoid::kLinear, 0.0);
    return upright * (reach * (0.5 + 0.5 * fetch));
  }

  double desired_speed_;
  Task task_;
  bool fetch_;
  int root_, root_dof_, torso_, velocimeter_, floor_, workspace_;
  int ball_root_ = -1, ball_root_dof_ = -1, ball_ = -1, ball_geom_ = -1, target_ = -1;
  std::vector<int> hinges_, imu_, force_torque_, rangefinders_;
  // Escape's terrain.
  int bump_res_ = 0;
  std::unique_ptr<SplineZoom> zoom_;
  std::vector<double> bowl_, bumps_, smooth_bumps_;
};

}  // namespace

void RegisterQuadruped(TaskRegistry& registry, const std::string& suite_dir) {
  // Control timestep 0.02 s over the model's 0.005 s; walk's and run's floor
  // is the time limit (20 s) times the speed, escape's 40 m.
  std::vector<ObsArray> obs = {{"egocentric_state", {44}}, {"torso_velocity", {3}},
                               {"torso_upright", {}},      {"imu", {6}},
                               {"force_torque", {24}},     {"origin", {3}},
                               {"rangefinder", {20}},      {"ball_state", {9}},
                               {"target_position", {3}}};
  struct Def {
    const char* name;
    Task task;
    double speed;
    double floor_size;  // 0: the file's floor (fetch's arena)
  };
  for (Def d : {Def{"walk", Task::kMove, 0.5, 20 * 0.5}, Def{"run", Task::kMove, 5.0, 20 * 5.0},
                Def{"escape", Task::kEscape, 0.0, 40}, Def{"fetch", Task::kFetch, 0.0, 0}}) {
    AddSuiteTask(registry, suite_dir,
                 {"quadruped", d.name, 4, obs, SuiteEnvFactory<QuadrupedEnv>(d.task, d.speed)},
                 [d](const std::string& xml) {
                   return MakeQuadrupedXml(xml, d.floor_size, d.task == Task::kEscape);
                 });
  }
}

}  // namespace envpool_core::dm_control
