// The base of the Control Suite's tasks: dm_control's control.Environment with
// a suite Physics (dm_control/rl/control.py, dm_control/mujoco/engine.py,
// dm_control/suite/base.py), with the calls in dm_control's order so that the
// same start state and actions give the same arithmetic.
//
// reset(): mj_resetData and mj_forward with actuation disabled (Physics.reset),
// the task's InitializeEpisode, mj_forward with actuation disabled again
// (after_reset), the observation. step(): ctrl = action (MuJoCo clamps it to
// ctrlrange, as dm_control leaves it), Physics.step(frame_skip) (mj_step2,
// mj_step, ..., mj_step1), reward, observation. The time limit is the engine's
// max_episode_steps; a task that ends episodes itself overrides Termination.
//
// A task that changes its model per episode (a target's place, a gain) gets a
// model of its own (`private_model`); the others share one.
//
// The random draws of a reset are numpy's RandomState(seed)'s, made in
// dm_control's order, so env seed s starts where dm_control's task with
// random=s starts.
#pragma once

#include <mujoco/mujoco.h>

#include <cmath>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "core/env.h"
#include "dm_control/numpy_random.h"
#include "dm_control/suite_model.h"
#include "mujoco/mujoco_ptr.h"
#include "mujoco/model_names.h"

namespace envpool_core::dm_control {

class SuiteEnv : public Env {
 public:
  SuiteEnv(const EnvSpec& spec, std::uint64_t seed, SuiteModel model, bool private_model = false);
  SuiteEnv(const SuiteEnv&) = delete;
  SuiteEnv& operator=(const SuiteEnv&) = delete;

  bool Reset(OutputRow& row) final;
  void Step(const void* action, OutputRow& row) final;
  // physics.render(height, width, camera_id) of dm_control: camera -1 is
  // MuJoCo's default free camera, k >= 0 the model's camera k.
  void Render(std::uint8_t* rgb) final;
  void Seed(std::uint64_t seed) final {
    random_.Seed(seed);
    AfterSeed();
  }

 protected:
  // The task's initialize_episode, after mj_resetData (and before after_reset).
  virtual void InitializeEpisode() = 0;
  // The task's get_observation, into the row's obs arrays.
  virtual void WriteObservation(OutputRow& row) = 0;
  // The task's get_reward.
  virtual double Reward() = 0;
  // The task's get_termination: empty while the episode goes on, else the
  // discount it ends with.
  virtual std::optional<double> Termination() { return std::nullopt; }
  // Draws what a task draws from a new RandomState before its first episode (the
  // LQR's model); called by Seed (a task calls it from its constructor too).
  virtual void AfterSeed() {}

  // With reset_state_in_info: keeps qpos/qvel as the episode's start state for the info
  // arrays qpos0/qvel0. Reset calls it after InitializeEpisode; a task whose
  // InitializeEpisode goes on after drawing the start (cheetah's settling steps) calls it
  // there.
  void RecordStartState();
  // With reset_state_in_info, the task's SuiteTaskDef::start_info arrays, into the info
  // arrays from `first` on (called at every reset and step; the values hold per episode).
  virtual void WriteStartInfo(OutputRow& /*row*/, int /*first*/) const {}
  // A task that rewrites its model's heightfields calls this, so that frames
  // show the new ones (dm_control uploads them to its renderer again).
  void HeightFieldsChanged();

  // Physics.step(nstep) and Physics.forward() with actuation disabled.
  void PhysicsStep(int nstep);
  void ForwardWithoutActuation();

  // np.linalg.norm of a short vector: sqrt(x.dot(x)), whose dot (OpenBLAS on
  // x86-64) accumulates with fused multiply-adds; so does this, to the last bit.
  static double Norm(const double* x, int n) {
    double s = 0.0;
    for (int i = 0; i < n; ++i) s = std::fma(x[i], x[i], s);
    return std::sqrt(s);
  }
  int SensorAdr(const char* name) const {
    return model_->sensor_adr[mujoco::NameId(model_, mjOBJ_SENSOR, name)];
  }

  // The env's own model with `private_model` (null otherwise): the task may change it.
  mujoco::ModelPtr private_model_owner_;
  mjModel* private_model_;  // private_model_owner_'s
  const mjModel* model_;
  mujoco::DataPtr data_owner_;
  mjData* data_;  // data_owner_'s
  NumpyRandomState random_;
  const int frame_skip_;

 private:
  SuiteModel suite_model_;
  const int render_width_;
  const int render_height_;
  const int render_camera_id_;
  void WriteStartState(OutputRow& row) const;
  // The info index of qpos0 (qvel0 follows) with reset_state_in_info, else -1.
  int start_state_info_ = -1;
  bool start_recorded_ = false;
  std::vector<double> qpos0_, qvel0_;
  // The heightfields as last changed, unique across envs (0: as loaded).
  std::uint64_t height_field_version_ = 0;
};

}  // namespace envpool_core::dm_control
