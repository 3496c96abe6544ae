#include "dm_control/suite_env.h"

#include <atomic>
#include <stdexcept>
#include <utility>

#include "mujoco/mujoco_errors.h"
#include "mujoco/mujoco_renderer.h"

namespace envpool_core::dm_control {

SuiteEnv::SuiteEnv(const EnvSpec& spec, std::uint64_t seed, SuiteModel model, bool private_model)
    : private_model_owner_(private_model ? mujoco::CopyModel(model.model.get()) : nullptr),
      private_model_(private_model_owner_.get()),
      model_(private_model ? private_model_ : model.model.get()),
      data_owner_(mujoco::MakeData(model_)),
      data_(data_owner_.get()),
      random_(seed),
      frame_skip_(static_cast<int>(spec.config.GetInt("frame_skip"))),
      suite_model_(std::move(model)),
      render_width_(static_cast<int>(spec.config.GetInt("render_width"))),
      render_height_(static_cast<int>(spec.config.GetInt("render_height"))),
      render_camera_id_(static_cast<int>(spec.config.GetInt("render_camera_id"))) {
  if (spec.config.GetBool("reset_state_in_info")) {
    // qpos0, qvel0, then the task's start_info arrays.
    for (std::size_t i = 0; i < spec.info.size(); ++i) {
      if (spec.info[i].name == "qpos0") start_state_info_ = static_cast<int>(i);
    }
    qpos0_.resize(static_cast<std::size_t>(model_->nq));
    qvel0_.resize(static_cast<std::size_t>(model_->nv));
  }
}

bool SuiteEnv::Reset(OutputRow& row) {
  mujoco::ResetPhysics(model_, data_);
  ForwardWithoutActuation();
  start_recorded_ = false;
  InitializeEpisode();
  if (!start_recorded_) RecordStartState();
  ForwardWithoutActuation();
  WriteObservation(row);
  WriteStartState(row);
  row.reward = 0.0F;
  row.terminated = false;
  row.discount = 1.0F;
  return true;
}

void SuiteEnv::Step(const void* action, OutputRow& row) {
  mju_copy(data_->ctrl, static_cast<const double*>(action), model_->nu);
  PhysicsStep(frame_skip_);
  row.reward = static_cast<float>(Reward());
  WriteObservation(row);
  WriteStartState(row);
  std::optional<double> end = Termination();
  row.terminated = end.has_value();
  row.discount = end.has_value() ? static_cast<float>(*end) : 1.0F;
}

void SuiteEnv::RecordStartState() {
  start_recorded_ = true;
  if (start_state_info_ < 0) return;
  mju_copy(qpos0_.data(), data_->qpos, model_->nq);
  mju_copy(qvel0_.data(), data_->qvel, model_->nv);
}

void SuiteEnv::WriteStartState(OutputRow& row) const {
  if (start_state_info_ < 0) return;
  mju_copy(row.Info<double>(start_state_info_), qpos0_.data(), model_->nq);
  mju_copy(row.Info<double>(start_state_info_ + 1), qvel0_.data(), model_->nv);
  WriteStartInfo(row, start_state_info_ + 2);
}

void SuiteEnv::PhysicsStep(int nstep) { mujoco::StepPhysicsSplit(model_, data_, nstep); }

void SuiteEnv::ForwardWithoutActuation() {
  if (private_model_ == nullptr) {
    mujoco::ForwardPhysics(suite_model_.without_actuation.get(), data_);
    return;
  }
  // The env's own model: dm_control's way, the flag set for the call.
  int flags = private_model_->opt.disableflags;
  private_model_->opt.disableflags = flags | mjDSBL_ACTUATION;
  try {
    mujoco::ForwardPhysics(private_model_, data_);
  } catch (...) {
    private_model_->opt.disableflags = flags;
    throw;
  }
  private_model_->opt.disableflags = flags;
}

void SuiteEnv::HeightFieldsChanged() {
  static std::atomic<std::uint64_t> versions{0};
  height_field_version_ = versions.fetch_add(1) + 1;
}

void SuiteEnv::Render(std::uint8_t* rgb) {
  mjvCamera camera;
  mjv_defaultCamera(&camera);
  if (render_camera_id_ < 0) {
    camera.type = mjCAMERA_FREE;
    mjv_defaultFreeCamera(model_, &camera);
  } else {
    camera.type = mjCAMERA_FIXED;
    camera.fixedcamid = render_camera_id_;
  }
  mujoco::CopyFrameTopDown(
      // dm_control's scene option hides rangefinder rays.
      mujoco::RenderFrame(suite_model_.model.get(), model_, data_, &camera, render_width_,
                          render_height_,
                          height_field_version_, /*rangefinder_rays=*/false),
      render_width_,
      render_height_, rgb);
}

}  // namespace envpool_core::dm_control
