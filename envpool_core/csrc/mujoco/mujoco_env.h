// The base of gymnasium's MuJoCo tasks (gymnasium/envs/mujoco/mujoco_env.py),
// and the helpers every task uses to declare its options and spec.
//
// The base owns the parts of reset() and step() that every task shares
// (mj_resetData, the start state in info); a task implements ResetModel (noise,
// SetState, obs) and StepModel (DoSimulation, obs, reward, termination, info).
// Observations are written straight into the output row; nothing is allocated
// per step.
#pragma once

#include <mujoco/mujoco.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "core/env.h"
#include "core/task_registry.h"
#include "mujoco/mujoco_ptr.h"
#include "mujoco/render_camera.h"

namespace envpool_core::mujoco {

class MujocoEnv : public Env {
 public:
  // `v5`: the task is gymnasium's v5 (else v4). v5 always calls
  // mj_rnePostConstraint after stepping, so that cacc/cfrc_int/cfrc_ext are
  // valid; v4 only where the task reads them (`v4_post_constraint`).
  MujocoEnv(const EnvSpec& spec, std::uint64_t seed, std::shared_ptr<const mjModel> model,
            bool v5, bool v4_post_constraint = false);
  MujocoEnv(const MujocoEnv&) = delete;
  MujocoEnv& operator=(const MujocoEnv&) = delete;

  // gymnasium's reset() (mj_resetData, then the task's ResetModel) and step()
  // (the task's StepModel). Both then write the episode's start state into
  // info when `reset_state_in_info` is on: output rows are reused, so every
  // row must get it, and here no task can forget it.
  bool Reset(OutputRow& row) final;
  void Step(const void* action, OutputRow& row) final;

  // The current frame as gymnasium's render() draws it (render_width x
  // render_height, render_camera_id), height x width x 3, top row first.
  void Render(std::uint8_t* rgb) final;

  void Seed(std::uint64_t seed) final;

 protected:
  // The task's reset, from mj_resetData's state: SetState, first obs and infos.
  virtual void ResetModel(OutputRow& row) = 0;
  // The task's step: DoSimulation, obs, reward, termination and infos.
  virtual void StepModel(const double* action, OutputRow& row) = 0;

  // gymnasium's set_state: writes qpos/qvel, runs mj_forward, and remembers
  // them as the episode's start state (info qpos0/qvel0 when enabled).
  void SetState(const mjtNum* qpos, const mjtNum* qvel);
  // gymnasium's do_simulation: ctrl = action, frame_skip mj_steps.
  void DoSimulation(const double* action);

  // Reset noise from the env's own generator.
  double Uniform(double low, double high) {
    return std::uniform_real_distribution<double>(low, high)(rng_);
  }
  // One distribution for the env's life: it keeps the second value of each pair it draws,
  // as EnvPool's does, so the draws are EnvPool's.
  double StandardNormal() { return standard_normal_(rng_); }

  // The reset_model most tasks share: qpos = init_qpos + U(-scale, scale),
  // then qvel = U(-scale, scale) (kUniform) or scale * N(0, 1) (kNormal),
  // drawn in that order; then set_state.
  enum class QvelNoise { kUniform, kNormal };
  void SetNoisyInitState(double scale, QvelNoise qvel_noise);
  // Its pieces, for tasks that place a target in between (Reacher, Pusher):
  // fill the qpos_/qvel_ scratch, with noise in the first `num_noisy` entries
  // only (the rest start at init_qpos / at rest), drawing no more than EnvPool.
  void DrawQposNoise(double scale, int num_noisy);  // init_qpos + U(-scale, scale)
  void DrawQvelNoise(double scale, int num_noisy);  // U(-scale, scale)

  // The observation most tasks start with: qpos[qpos_begin:], then qvel
  // clipped to [qvel_min, qvel_max]. Returns the end of what it wrote.
  double* WriteStateObs(double* obs, int qpos_begin,
                        double qvel_min = -std::numeric_limits<double>::infinity(),
                        double qvel_max = std::numeric_limits<double>::infinity()) const;

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
  // Sum of squares (gymnasium's np.sum(np.square(x))).
  static double SquaredNorm(const double* x, int n) {
    double s = 0.0;
    for (int i = 0; i < n; ++i) s += x[i] * x[i];
    return s;
  }

  const bool v5_;
  std::shared_ptr<const mjModel> model_ref_;
  const mjModel* model_;
  DataPtr data_owner_;
  mjData* data_;  // data_owner_'s
  std::mt19937 rng_;  // seeded as EnvPool's, so a seed gives EnvPool's start states
  std::normal_distribution<double> standard_normal_;
  int frame_skip_;
  double dt_;                  // model timestep * frame_skip
  std::vector<mjtNum> qpos_;   // scratch for building the reset state
  std::vector<mjtNum> qvel_;

 private:
  void WriteResetState(OutputRow& row) const;

  bool post_constraint_;
  const int render_width_;
  const int render_height_;
  const int render_camera_id_;
  const FreeCameraConfig camera_config_;
  mjvCamera camera_;
  bool camera_ready_ = false;  // gymnasium sets its camera up at the first frame
  int reset_state_info_ = -1;  // info index of qpos0 (qvel0 follows), -1: off
  std::vector<mjtNum> qpos0_;
  std::vector<mjtNum> qvel0_;
};

// Option helpers with gymnasium's names.
OptionDef XmlFileOption(const std::string& default_file);
OptionDef FrameSkipOption(int default_skip);
OptionDef ResetNoiseScaleOption(double default_scale);
OptionDef ExcludePositionsOption(int num_excluded);
OptionDef ForwardRewardWeightOption(double default_weight,
                                    const std::string& of = "x velocity");
OptionDef CtrlCostWeightOption(double default_weight);
OptionDef HealthyRewardOption(double default_reward,
                              const std::string& what = "reward per step for being healthy");
OptionDef TerminateWhenUnhealthyOption();

// Builds the pieces of a spec: one float64 obs array, scalar float64 infos.
ArraySpec ObsSpec(int size);
void AddScalarInfos(EnvSpec* spec, std::initializer_list<const char*> names);

using MakeEnvFn = std::function<std::unique_ptr<Env>(const EnvSpec&, std::uint64_t seed,
                                                     std::shared_ptr<const mjModel>)>;

// How a task is registered. The spec and env factories get the task's model.
struct MujocoTaskDef {
  std::string id;
  int max_episode_steps;
  // The defaults of the xml_file and frame_skip options. gymnasium's v4
  // constructors (but Ant's) take neither; EnvPool's -v4 tasks take both.
  std::string xml_file;     // a model file in gymnasium's assets dir
  int frame_skip;
  std::vector<OptionDef> options;
  // EnvPool's names for options, and EnvPool's options this task refuses (see TaskDef).
  std::map<std::string, std::string> aliases;
  std::map<std::string, std::string> refused;
  // Fills obs and info (the action spec and reset-state infos are added after).
  std::function<void(const Config&, const mjModel&, EnvSpec*)> make_spec;
  MakeEnvFn make_env;
};

// The definition of `family`-v4 or -v5, with the EnvPool options every task
// refuses (post_constraint, gymnasium_v5_render_camera). The task fills in the rest.
MujocoTaskDef VersionedTaskDef(const std::string& family, bool v5, int max_episode_steps,
                               std::string xml_file, int frame_skip);

// Refuses EnvPool's `option`, one of the switches with which EnvPool builds a
// -v5 task out of its -v4 code: here the task id chooses, and the error says
// which id has which value (`v4_value`, `v5_value`).
void RefuseVersionSwitch(MujocoTaskDef* def, const std::string& option, const char* v4_value,
                         const char* v5_value);

// Refuses EnvPool's use_contact_force on Ant-v5 / Humanoid-v5, where gymnasium's
// options say it in two parts.
void RefuseV5UseContactForce(MujocoTaskDef* def);

// make_env for an env class constructed as `Task(spec, seed, model, v5)`.
template <typename Task>
MakeEnvFn EnvFactory(bool v5) {
  return [v5](const EnvSpec& spec, std::uint64_t seed,
              std::shared_ptr<const mjModel> model) -> std::unique_ptr<Env> {
    return std::make_unique<Task>(spec, seed, std::move(model), v5);
  };
}

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
