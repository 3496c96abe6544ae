// The base of gymnasium's MuJoCo tasks (gymnasium/envs/mujoco/mujoco_env.py),
// and the helpers every task uses to declare its options and spec.
//
// A task subclass implements Reset (mj_resetData, noise, SetState, obs) and
// Step (DoSimulation, obs, reward, termination, info). Observations are written
// straight into the output row; nothing is allocated per step.
#pragma once

#include <mujoco/mujoco.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "core/env.h"
#include "core/task_registry.h"

namespace envpool_core::mujoco {

// Humanoid-style observation: qpos (minus x/y when `exclude_xy`), qvel, then
// the optional cinert, cvel, qfrc_actuator and cfrc_ext blocks. `v5` drops the
// world body's rows and the free joint's 6 actuator-force entries, as
// gymnasium's v5 does. Returns the size; with `d` or `obs` null it only counts.
int WriteHumanoidObs(const mjModel& m, const mjData* d, double* obs, bool exclude_xy, bool cinert,
                     bool cvel, bool qfrc, bool cfrc, bool v5);

class MujocoEnv : public Env {
 public:
  // `post_constraint`: call mj_rnePostConstraint after stepping, so that
  // cacc/cfrc_int/cfrc_ext are valid (v5 always; v4 where the task reads them).
  MujocoEnv(const EnvSpec& spec, std::uint64_t seed, std::shared_ptr<const mjModel> model,
            bool post_constraint);
  ~MujocoEnv() override;
  MujocoEnv(const MujocoEnv&) = delete;
  MujocoEnv& operator=(const MujocoEnv&) = delete;

 protected:
  // mj_resetData: the state gymnasium's reset() starts from.
  void ResetData() { mj_resetData(model_, data_); }
  // gymnasium's set_state: writes qpos/qvel, runs mj_forward, and remembers
  // them as the episode's start state (info qpos0/qvel0 when enabled).
  void SetState(const mjtNum* qpos, const mjtNum* qvel);
  // gymnasium's do_simulation: ctrl = action, frame_skip mj_steps.
  void DoSimulation(const double* action);

  // Reset noise from the env's own generator.
  double Uniform(double low, double high) {
    return std::uniform_real_distribution<double>(low, high)(rng_);
  }
  double StandardNormal() { return std::normal_distribution<double>(0.0, 1.0)(rng_); }

  // Writes the episode's start state into info (when `reset_state_in_info`).
  // Every Reset and Step must call it, since output rows are reused.
  void WriteResetState(OutputRow& row) const;

  static void SetInfo(OutputRow& row, int index, double value) {
    *row.Info<double>(index) = value;
  }
  // Zeroes scalar infos [0, n): what a reset reports for per-step terms.
  static void ZeroInfos(OutputRow& row, int n) {
    for (int i = 0; i < n; ++i) *row.Info<double>(i) = 0.0;
  }
  static double Clip(double x, double low, double high) {
    return x < low ? low : (x > high ? high : x);  // NaN passes through, as np.clip
  }
  bool StateIsFinite() const {
    for (int i = 0; i < model_->nq; ++i) {
      if (!std::isfinite(data_->qpos[i])) return false;
    }
    for (int i = 0; i < model_->nv; ++i) {
      if (!std::isfinite(data_->qvel[i])) return false;
    }
    return true;
  }

  // np.linalg.norm of a short vector.
  static double Norm(const double* x, int n) { return std::sqrt(SquaredNorm(x, n)); }
  static double Norm2(double x, double y) { return std::sqrt(x * x + y * y); }

  int HumanoidObs(double* obs, bool exclude_xy, bool cinert, bool cvel, bool qfrc, bool cfrc,
                  bool v5) const {
    return WriteHumanoidObs(*model_, data_, obs, exclude_xy, cinert, cvel, qfrc, cfrc, v5);
  }

  // Sum of squares of the action (gymnasium's np.sum(np.square(action))).
  static double SquaredNorm(const double* x, int n) {
    double s = 0.0;
    for (int i = 0; i < n; ++i) s += x[i] * x[i];
    return s;
  }

  std::shared_ptr<const mjModel> model_ref_;
  const mjModel* model_;
  mjData* data_;
  std::mt19937_64 rng_;
  int frame_skip_;
  double dt_;                  // model timestep * frame_skip
  std::vector<mjtNum> qpos_;   // scratch for building the reset state
  std::vector<mjtNum> qvel_;

 private:
  bool post_constraint_;
  int reset_state_info_ = -1;  // info index of qpos0 (qvel0 follows), -1: off
  std::vector<mjtNum> qpos0_;
  std::vector<mjtNum> qvel0_;
};

// Option helpers with gymnasium's names.
OptionDef XmlFileOption(const std::string& default_file);
OptionDef FrameSkipOption(int default_skip);
OptionDef ResetNoiseScaleOption(double default_scale);
OptionDef ExcludePositionsOption(int num_excluded);
OptionDef TerminateWhenUnhealthyOption();

// Builds the pieces of a spec: one float64 obs array, scalar float64 infos.
ArraySpec ObsSpec(int size);
void AddScalarInfos(EnvSpec* spec, std::initializer_list<const char*> names);

// How a task is registered. The spec and env factories get the task's model.
struct MujocoTaskDef {
  std::string id;
  int max_episode_steps;
  std::string xml_file;     // default model file in gymnasium's assets dir
  bool xml_option;          // `xml_file` is a user option (v5, Ant-v4) or fixed
  int frame_skip;
  bool frame_skip_option;   // `frame_skip` is a user option (v5) or fixed
  std::vector<OptionDef> options;
  // Fills obs and info (the action spec and reset-state infos are added after).
  std::function<void(const Config&, const mjModel&, EnvSpec*)> make_spec;
  std::function<std::unique_ptr<Env>(const EnvSpec&, std::uint64_t seed,
                                     std::shared_ptr<const mjModel>)>
      make_env;
};

void AddMujocoTask(TaskRegistry& registry, const std::string& asset_dir, MujocoTaskDef def);

// Adds the v4 and v5 tasks of each family (one .cc file per task).
void RegisterAnt(TaskRegistry& registry, const std::string& asset_dir);
void RegisterHalfCheetah(TaskRegistry& registry, const std::string& asset_dir);
void RegisterHopper(TaskRegistry& registry, const std::string& asset_dir);
void RegisterHumanoid(TaskRegistry& registry, const std::string& asset_dir);
void RegisterHumanoidStandup(TaskRegistry& registry, const std::string& asset_dir);
void RegisterInvertedDoublePendulum(TaskRegistry& registry, const std::string& asset_dir);
void RegisterInvertedPendulum(TaskRegistry& registry, const std::string& asset_dir);
void RegisterPusher(TaskRegistry& registry, const std::string& asset_dir);
void RegisterReacher(TaskRegistry& registry, const std::string& asset_dir);
void RegisterSwimmer(TaskRegistry& registry, const std::string& asset_dir);
void RegisterWalker2d(TaskRegistry& registry, const std::string& asset_dir);

}  // namespace envpool_core::mujoco
