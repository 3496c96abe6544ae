// The humanoid domains: humanoid (dm_control/suite/humanoid.py: stand, walk,
// run, and run with the pure MuJoCo state as observation) and humanoid_CMU
// (humanoid_CMU.py: stand, walk, run), the same task on two bodies.
#include <array>
#include <stdexcept>

#include "dm_control/randomizers.h"
#include "dm_control/rewards.h"
#include "dm_control/suite_env.h"
#include "dm_control/suite_task.h"
#include "mujoco/model_names.h"

namespace envpool_core::dm_control {

namespace {

constexpr double kStandHeight = 1.4;

// Observation arrays, EnvPool's for every task of the domain: the pure-state
// task fills position and velocity only, the others all but position (zeros
// where a task has no such key, as EnvPool's). humanoid_CMU has no position.
enum Obs { kJointAngles, kHeadHeight, kExtremities, kTorsoVertical, kComVelocity, kPosition };

// What differs between the two bodies.
struct Body {
  const char* torso;
  const char* head;
  std::array<const char*, 4> limbs;  // left hand, left foot, right hand, right foot
  const char* com_velocity_sensor;
  int upright_entry;  // the entry of the torso's xmat the upright reward reads
  bool has_position;  // EnvPool's `position` key (humanoid's, for run_pure_state)
};
constexpr Body kHumanoid = {"torso", "head", {"left_hand", "left_foot", "right_hand", "right_foot"},
                            "torso_subtreelinvel", 8, true};                      // zz
constexpr Body kHumanoidCMU = {"thorax", "head", {"lhand", "lfoot", "rhand", "rfoot"},
                               "thorax_subtreelinvel", 7, false};                 // zy

class HumanoidEnv final : public SuiteEnv {
 public:
  HumanoidEnv(const EnvSpec& spec, std::uint64_t seed, SuiteModel model, const Body* body,
              double move_speed, bool pure_state)
      : SuiteEnv(spec, seed, std::move(model)),
        move_speed_(move_speed),
        pure_state_(pure_state),
        has_position_(body->has_position),
        upright_entry_(body->upright_entry),
        velocity_obs_(body->has_position ? kPosition + 1 : kPosition),
        torso_(mujoco::NameId(model_, mjOBJ_BODY, body->torso)),
        head_(mujoco::NameId(model_, mjOBJ_BODY, body->head)),
        com_velocity_(SensorAdr(body->com_velocity_sensor)) {
    for (int i = 0; i < 4; ++i) limbs_[i] = mujoco::NameId(model_, mjOBJ_BODY, body->limbs[i]);
  }

 private:
  void InitializeEpisode() override {
    // Random joint angles until nothing touches (dm_control tries forever too).
    do {
      RandomizeLimitedAndRotationalJoints(model_, data_, &random_);
      ForwardWithoutActuation();
    } while (data_->ncon > 0);
  }

  double HeadHeight() const { return data_->xpos[3 * head_ + 2]; }
  const double* ComVelocity() const { return data_->sensordata + com_velocity_; }

  void WriteObservation(OutputRow& row) override {
    int nq = model_->nq, nv = model_->nv;
    if (pure_state_) {
      mju_zero(row.Obs<double>(kJointAngles), nq - 7);
      *row.Obs<double>(kHeadHeight) = 0.0;
      mju_zero(row.Obs<double>(kExtremities), 12);
      mju_zero(row.Obs<double>(kTorsoVertical), 3);
      mju_zero(row.Obs<double>(kComVelocity), 3);
      mju_copy(row.Obs<double>(kPosition), data_->qpos, nq);
      mju_copy(row.Obs<double>(velocity_obs_), data_->qvel, nv);
      return;
    }
    mju_copy(row.Obs<double>(kJointAngles), data_->qpos + 7, nq - 7);  // past the free root
    *row.Obs<double>(kHeadHeight) = HeadHeight();
    // Each limb's position relative to the torso, in the torso's frame: (limb -
    // torso) . R, summed as numpy's dot (fused multiply-adds, in order).
    const double* torso_pos = data_->xpos + 3 * torso_;
    const double* frame = data_->xmat + 9 * torso_;
    double* extremities = row.Obs<double>(kExtremities);
    for (int limb : limbs_) {
      double to_limb[3];
      mju_sub3(to_limb, data_->xpos + 3 * limb, torso_pos);
      for (int j = 0; j < 3; ++j) {
        double s = 0.0;
        for (int i = 0; i < 3; ++i) s = std::fma(to_limb[i], frame[3 * i + j], s);
        *extremities++ = s;
      }
    }
    mju_copy(row.Obs<double>(kTorsoVertical), frame + 6, 3);  // zx, zy, zz
    mju_copy(row.Obs<double>(kComVelocity), ComVelocity(), 3);
    if (has_position_) mju_zero(row.Obs<double>(kPosition), nq);
    mju_copy(row.Obs<double>(velocity_obs_), data_->qvel, nv);
  }

  double Reward() override {
    double standing = Tolerance(HeadHeight(), kStandHeight, kInf, kStandHeight / 4);
    double upright =
        Tolerance(data_->xmat[9 * torso_ + upright_entry_], 0.9, kInf, 1.9, Sigmoid::kLinear, 0.0);
    double stand_reward = standing * upright;
    double small_control = 0.0;
    for (int i = 0; i < model_->nu; ++i) {
      small_control += Tolerance(data_->ctrl[i], 0.0, 0.0, 1.0, Sigmoid::kQuadratic, 0.0);
    }
    small_control = (4 + small_control / model_->nu) / 5;
    const double* com_velocity = ComVelocity();
    if (move_speed_ == 0.0) {
      double dont_move = (Tolerance(com_velocity[0], 0.0, 0.0, 2.0) +
                          Tolerance(com_velocity[1], 0.0, 0.0, 2.0)) / 2;
      return small_control * stand_reward * dont_move;
    }
    double move = Tolerance(Norm(com_velocity, 2), move_speed_, kInf, move_speed_,
                            Sigmoid::kLinear, 0.0);
    move = (5 * move + 1) / 6;
    return small_control * stand_reward * move;
  }

  double move_speed_;
  bool pure_state_;
  bool has_position_;
  int upright_entry_;
  int velocity_obs_;
  int torso_, head_, com_velocity_;
  std::array<int, 4> limbs_{};
};

struct Task {
  const char* name;
  double move_speed;
  bool pure_state;
};

}  // namespace

void RegisterHumanoid(TaskRegistry& registry, const std::string& suite_dir) {
  // Control timestep 0.025 s over the model's 0.005 s.
  std::vector<ObsArray> obs = {{"joint_angles", {21}}, {"head_height", {}},
                               {"extremities", {12}},  {"torso_vertical", {3}},
                               {"com_velocity", {3}},  {"position", {28}},
                               {"velocity", {27}}};
  for (Task t : {Task{"stand", 0.0, false}, Task{"walk", 1.0, false}, Task{"run", 10.0, false},
                 Task{"run_pure_state", 10.0, true}}) {
    AddSuiteTask(registry, suite_dir,
                 {"humanoid", t.name, 5, obs,
                  SuiteEnvFactory<HumanoidEnv>(&kHumanoid, t.move_speed, t.pure_state)});
  }
}

void RegisterHumanoidCMU(TaskRegistry& registry, const std::string& suite_dir) {
  // Control timestep 0.02 s over the model's 0.002 s.
  std::vector<ObsArray> obs = {{"joint_angles", {56}},   {"head_height", {}},
                               {"extremities", {12}},    {"torso_vertical", {3}},
                               {"com_velocity", {3}},    {"velocity", {62}}};
  for (Task t : {Task{"stand", 0.0, false}, Task{"walk", 1.0, false}, Task{"run", 10.0, false}}) {
    AddSuiteTask(registry, suite_dir,
                 {"humanoid_CMU", t.name, 10, obs,
                  SuiteEnvFactory<HumanoidEnv>(&kHumanoidCMU, t.move_speed, t.pure_state)});
  }
}

}  // namespace envpool_core::dm_control
