#include "mujoco/mujoco_env.h"

#include <stdexcept>
#include <utility>

#include "mujoco/model_cache.h"
#include "mujoco/mujoco_errors.h"
#include "mujoco/mujoco_renderer.h"
#include "mujoco/render_options.h"

namespace envpool_core::mujoco {

MujocoEnv::MujocoEnv(const EnvSpec& spec, std::uint64_t seed,
                     std::shared_ptr<const mjModel> model, bool v5, bool v4_post_constraint)
    : v5_(v5),
      model_ref_(std::move(model)),
      model_(model_ref_.get()),
      data_owner_(MakeData(model_)),
      data_(data_owner_.get()),
      rng_(static_cast<std::mt19937::result_type>(seed)),
      frame_skip_(static_cast<int>(spec.config.GetInt("frame_skip"))),
      dt_(model_->opt.timestep * frame_skip_),
      qpos_(static_cast<std::size_t>(model_->nq)),
      qvel_(static_cast<std::size_t>(model_->nv)),
      post_constraint_(v5 || v4_post_constraint),
      render_width_(static_cast<int>(spec.config.GetInt("render_width"))),
      render_height_(static_cast<int>(spec.config.GetInt("render_height"))),
      render_camera_id_(static_cast<int>(spec.config.GetInt("render_camera_id"))),
      camera_config_(GymnasiumCameraConfig(spec.config.GetString("task_id"))) {
  if (spec.config.GetBool("reset_state_in_info")) {
    reset_state_info_ = static_cast<int>(spec.info.size()) - 2;
    qpos0_.resize(static_cast<std::size_t>(model_->nq));
    qvel0_.resize(static_cast<std::size_t>(model_->nv));
  }
}

bool MujocoEnv::Reset(OutputRow& row) {
  ResetPhysics(model_, data_);
  ResetModel(row);
  WriteResetState(row);
  return true;
}

void MujocoEnv::Step(const void* action, OutputRow& row) {
  StepModel(static_cast<const double*>(action), row);
  WriteResetState(row);
}

void MujocoEnv::Seed(std::uint64_t seed) {
  rng_.seed(static_cast<std::mt19937::result_type>(seed));
  standard_normal_.reset();  // drops the kept second value: draws restart as a new env's
}

void MujocoEnv::Render(std::uint8_t* rgb) {
  if (!camera_ready_) {
    InitCamera(model_, data_, camera_config_, render_camera_id_, &camera_);
    camera_ready_ = true;
  }
  CopyFrameTopDown(RenderFrame(model_, model_, data_, &camera_, render_width_, render_height_),
                   render_width_, render_height_, rgb);
}

void MujocoEnv::SetState(const mjtNum* qpos, const mjtNum* qvel) {
  mju_copy(data_->qpos, qpos, model_->nq);
  mju_copy(data_->qvel, qvel, model_->nv);
  ForwardPhysics(model_, data_);
  if (reset_state_info_ >= 0) {
    mju_copy(qpos0_.data(), qpos, model_->nq);
    mju_copy(qvel0_.data(), qvel, model_->nv);
  }
}

void MujocoEnv::DoSimulation(const double* action) {
  mju_copy(data_->ctrl, action, model_->nu);
  // As of MuJoCo 2.0, force-related quantities (cacc, cfrc_ext) are only
  // computed on demand.
  StepPhysics(model_, data_, frame_skip_, post_constraint_);
}

void MujocoEnv::DrawQposNoise(double scale, int num_noisy) {
  for (int i = 0; i < model_->nq; ++i) {
    qpos_[i] = model_->qpos0[i] + (i < num_noisy ? Uniform(-scale, scale) : 0.0);
  }
}

void MujocoEnv::DrawQvelNoise(double scale, int num_noisy) {
  for (int i = 0; i < model_->nv; ++i) qvel_[i] = i < num_noisy ? Uniform(-scale, scale) : 0.0;
}

void MujocoEnv::SetNoisyInitState(double scale, QvelNoise qvel_noise) {
  DrawQposNoise(scale, model_->nq);
  if (qvel_noise == QvelNoise::kUniform) {
    DrawQvelNoise(scale, model_->nv);
  } else {
    for (int i = 0; i < model_->nv; ++i) qvel_[i] = scale * StandardNormal();
  }
  SetState(qpos_.data(), qvel_.data());
}

double* MujocoEnv::WriteStateObs(double* obs, int qpos_begin, double qvel_min,
                                 double qvel_max) const {
  for (int i = qpos_begin; i < model_->nq; ++i) *obs++ = data_->qpos[i];
  for (int i = 0; i < model_->nv; ++i) *obs++ = Clip(data_->qvel[i], qvel_min, qvel_max);
  return obs;
}

void MujocoEnv::WriteResetState(OutputRow& row) const {
  if (reset_state_info_ < 0) return;
  mju_copy(row.Info<double>(reset_state_info_), qpos0_.data(), model_->nq);
  mju_copy(row.Info<double>(reset_state_info_ + 1), qvel0_.data(), model_->nv);
}

OptionDef XmlFileOption(const std::string& default_file) {
  return OptionDef::String("xml_file", default_file,
                           "MuJoCo model: a file in gymnasium's assets dir, or a path "
                           "starting with '/', '.' or '~'");
}

OptionDef FrameSkipOption(int default_skip) {
  return OptionDef::Int("frame_skip", default_skip, "MuJoCo steps per env step", 1, 1 << 20);
}

OptionDef ResetNoiseScaleOption(double default_scale) {
  return OptionDef::Float("reset_noise_scale", default_scale,
                          "scale of the random perturbation of the initial qpos/qvel", 0.0);
}

OptionDef ExcludePositionsOption(int num_excluded) {
  return OptionDef::Bool("exclude_current_positions_from_observation", true,
                         "leave the first " + std::to_string(num_excluded) +
                             " qpos entries (the x" + (num_excluded == 2 ? "/y" : "") +
                             " position) out of the observation");
}

OptionDef ForwardRewardWeightOption(double default_weight, const std::string& of) {
  return OptionDef::Float("forward_reward_weight", default_weight,
                          "weight of the forward reward (" + of + ")");
}

OptionDef CtrlCostWeightOption(double default_weight) {
  return OptionDef::Float("ctrl_cost_weight", default_weight, "weight of the control cost");
}

OptionDef HealthyRewardOption(double default_reward, const std::string& what) {
  return OptionDef::Float("healthy_reward", default_reward, what);
}

OptionDef TerminateWhenUnhealthyOption() {
  return OptionDef::Bool("terminate_when_unhealthy", true,
                         "end the episode when the robot becomes unhealthy");
}

ArraySpec ObsSpec(int size) { return MakeArraySpec<double>("obs", {size}); }

void AddScalarInfos(EnvSpec* spec, std::initializer_list<const char*> names) {
  for (const char* name : names) spec->info.push_back(MakeArraySpec<double>(name, {}));
}

MujocoTaskDef VersionedTaskDef(const std::string& family, bool v5, int max_episode_steps,
                               std::string xml_file, int frame_skip) {
  MujocoTaskDef def;
  def.id = family + (v5 ? "-v5" : "-v4");
  def.max_episode_steps = max_episode_steps;
  def.xml_file = std::move(xml_file);
  def.frame_skip = frame_skip;
  RefuseVersionSwitch(&def, "gymnasium_v5_render_camera", "False", "True");
  def.refused["post_constraint"] =
      "whether mj_rnePostConstraint runs after each step; here it runs whenever the task's "
      "observation or reward reads what it computes, as gymnasium's do";
  return def;
}

void RefuseV5UseContactForce(MujocoTaskDef* def) {
  def->refused["use_contact_force"] =
      def->id + "'s reward always has the contact cost (contact_cost_weight, 0 removes it); "
      "include_cfrc_ext_in_observation puts the contact forces in the observation";
}

void RefuseVersionSwitch(MujocoTaskDef* def, const std::string& option, const char* v4_value,
                         const char* v5_value) {
  std::string family = def->id.substr(0, def->id.rfind('-'));
  def->refused[option] = "the task id chooses it here: " + family + "-v4 is " + option + "=" +
                         v4_value + ", " + family + "-v5 is " + option + "=" + v5_value;
}

namespace {

const RenderDefaults kGymnasiumRender{
    480, 480, "gymnasium's default", "gymnasium's default free camera for the task",
    "pixels"};

}  // namespace

void AddMujocoTask(TaskRegistry& registry, const std::string& asset_dir, MujocoTaskDef def) {
  TaskDef task;
  task.id = def.id;
  task.options.push_back(OptionDef::Int("max_episode_steps", def.max_episode_steps,
                                        "steps before truncation", 1));
  task.options.push_back(XmlFileOption(def.xml_file));
  task.options.push_back(FrameSkipOption(def.frame_skip));
  for (auto& o : def.options) task.options.push_back(std::move(o));
  task.aliases = std::move(def.aliases);
  task.refused = std::move(def.refused);
  task.options.push_back(OptionDef::Bool(
      "reset_state_in_info", false,
      "add info 'qpos0'/'qvel0': the qpos/qvel the current episode started from (after the "
      "reset noise), e.g. to copy into gymnasium with env.unwrapped.set_state(qpos0, qvel0)"));

  AddRenderOptions(kGymnasiumRender, &task.options);

  auto make_spec = std::move(def.make_spec);
  task.make_spec = [asset_dir, make_spec](const Config& config) {
    auto model = LoadModel(ResolveXmlPath(asset_dir, config.GetString("xml_file")));
    EnvSpec spec;
    make_spec(config, *model, &spec);
    std::vector<double> low, high;
    for (int i = 0; i < model->nu; ++i) {
      low.push_back(model->actuator_ctrlrange[2 * i]);
      high.push_back(model->actuator_ctrlrange[2 * i + 1]);
    }
    spec.action = MakeArraySpec<double>("action", {static_cast<int>(model->nu)}, std::move(low),
                                        std::move(high));
    if (config.GetBool("reset_state_in_info")) {
      spec.info.push_back(MakeArraySpec<double>("qpos0", {static_cast<int>(model->nq)}));
      spec.info.push_back(MakeArraySpec<double>("qvel0", {static_cast<int>(model->nv)}));
    }
    SetRenderSpec(config, *model, kGymnasiumRender, &spec);
    return spec;
  };
  auto make_env = std::move(def.make_env);
  task.make_env = [asset_dir, make_spec, make_env](const EnvSpec& spec, int, std::uint64_t seed) {
    auto model = LoadModel(ResolveXmlPath(asset_dir, spec.config.GetString("xml_file")));
    const mjModel& m = *model;
    std::unique_ptr<Env> env = make_env(spec, seed, std::move(model));
    if (!spec.config.GetBool("from_pixels") && spec.config.GetInt("frame_stack") == 1) {
      return env;
    }
    EnvSpec state_spec;  // the task's own spec: the size of the state the wrapper hides
    make_spec(spec.config, m, &state_spec);
    return WithRenderOptions(std::move(env), spec, {state_spec.obs[0].NumBytes()});
  };
  registry.Add(std::move(task));
}

}  // namespace envpool_core::mujoco
