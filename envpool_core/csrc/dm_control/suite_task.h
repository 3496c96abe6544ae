// How a Control Suite task is registered: EnvPool's id (CheetahRun-v1 for
// dm_control's cheetah/run), its options and observation arrays, its model
// read from the installed dm_control package.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/env.h"
#include "core/task_registry.h"
#include "dm_control/suite_model.h"

namespace envpool_core::dm_control {

struct ObsArray {
  const char* name;  // the key of dm_control's observation dict (EnvPool's name too)
  std::vector<int> shape;
};

using MakeSuiteEnvFn =
    std::function<std::unique_ptr<Env>(const EnvSpec&, std::uint64_t seed, SuiteModel)>;

struct SuiteTaskDef {
  std::string domain;  // dm_control's domain, e.g. "ball_in_cup": its model is <domain>.xml
  std::string task;    // dm_control's task, e.g. "catch"
  // Physics steps per env step (control.Environment's n_sub_steps: the domain's
  // control timestep over its model's timestep).
  int frame_skip;
  std::vector<ObsArray> obs;  // in EnvPool's order
  MakeSuiteEnvFn make_env;
  // A folder of the suite whose files the model reads by name (dog's meshes);
  // only with an edit of the XML (AddSuiteTask's edit_xml).
  std::string asset_dir = "";
  // With reset_state_in_info, the arrays besides qpos0/qvel0 that EnvPool's test build gives
  // the task's episodes (a target's place, ...), written by SuiteEnv::WriteStartInfo.
  std::vector<ObsArray> start_info = {};
};

// For a model dm_control builds by editing <domain>.xml (more poles, links):
// the edit, from the file's text to the model's.
using EditXmlFn = std::function<std::string(const std::string&)>;

// EnvPool's id: the domain and task in CamelCase, then -v1 (BallInCupCatch-v1).
std::string SuiteTaskId(const std::string& domain, const std::string& task);

// Registers `def` with its model at `suite_dir`/<domain>.xml (dm_control/suite
// of the installed package; its includes resolve from there). The time limit is
// 1000 steps for every task (dm_control's time limits over their control steps).
void AddSuiteTask(TaskRegistry& registry, const std::string& suite_dir, SuiteTaskDef def,
                  EditXmlFn edit_xml = nullptr);

// make_env for a task class constructed as `Task(spec, seed, model, args...)`.
template <typename Task, typename... Args>
MakeSuiteEnvFn SuiteEnvFactory(Args... args) {
  return [args...](const EnvSpec& spec, std::uint64_t seed,
                   SuiteModel model) -> std::unique_ptr<Env> {
    return std::make_unique<Task>(spec, seed, std::move(model), args...);
  };
}

// One file per domain, each adding its tasks.
void RegisterAcrobot(TaskRegistry& registry, const std::string& suite_dir);
void RegisterBallInCup(TaskRegistry& registry, const std::string& suite_dir);
void RegisterCartpole(TaskRegistry& registry, const std::string& suite_dir);
void RegisterCheetah(TaskRegistry& registry, const std::string& suite_dir);
void RegisterDog(TaskRegistry& registry, const std::string& suite_dir);
void RegisterFish(TaskRegistry& registry, const std::string& suite_dir);
void RegisterFinger(TaskRegistry& registry, const std::string& suite_dir);
void RegisterHopper(TaskRegistry& registry, const std::string& suite_dir);
void RegisterHumanoid(TaskRegistry& registry, const std::string& suite_dir);
void RegisterHumanoidCMU(TaskRegistry& registry, const std::string& suite_dir);
void RegisterLqr(TaskRegistry& registry, const std::string& suite_dir);
void RegisterManipulator(TaskRegistry& registry, const std::string& suite_dir);
void RegisterPendulum(TaskRegistry& registry, const std::string& suite_dir);
void RegisterPointMass(TaskRegistry& registry, const std::string& suite_dir);
void RegisterQuadruped(TaskRegistry& registry, const std::string& suite_dir);
void RegisterReacher(TaskRegistry& registry, const std::string& suite_dir);
void RegisterStacker(TaskRegistry& registry, const std::string& suite_dir);
void RegisterSwimmer(TaskRegistry& registry, const std::string& suite_dir);
void RegisterWalker(TaskRegistry& registry, const std::string& suite_dir);

}  // namespace envpool_core::dm_control
