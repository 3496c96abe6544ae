#include "testing/fault_injection.h"

#include <pthread.h>

#include <chrono>
#include <cstdint>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>

#include "core/env_pool.h"

namespace envpool_core::testing {

namespace {

constexpr const char* kTaskId = "FaultInjection-v0";
constexpr int kFrameSize = 2;  // render() frames are 2 x 2

class FaultInjectionEnv : public Env {
 public:
  FaultInjectionEnv(const EnvSpec& spec, int env_index)
      : env_index_(env_index),
        fail_in_(spec.config.GetString("fail_in")),
        fails_(spec.config.GetInt("fail_env_id") < 0 ||
               spec.config.GetInt("fail_env_id") == env_index),
        fail_after_(spec.config.GetInt("fail_after")),
        fail_with_(spec.config.GetString("fail_with")),
        fail_on_thread_(spec.config.GetString("fail_on_thread")),
        episode_length_(static_cast<int>(spec.config.GetInt("episode_length"))),
        sleep_(spec.config.GetInt("sleep_us")) {}

  bool Reset(OutputRow& row) override {
    Sleep();
    MaybeFail("reset");
    steps_ = 0;
    *row.Obs<std::int32_t>() = 0;
    return true;
  }

  void Step(const void* action, OutputRow& row) override {
    Sleep();
    MaybeFail("step");
    ++steps_;
    *row.Obs<std::int32_t>() = steps_;
    row.reward = static_cast<float>(*static_cast<const std::int32_t*>(action));
    row.terminated = episode_length_ > 0 && steps_ >= episode_length_;
  }

  void Render(std::uint8_t* rgb) override {
    Sleep();
    MaybeFail("render");
    std::memset(rgb, env_index_ & 0xFF, kFrameSize * kFrameSize * 3);  // says which env it is
  }

  void Seed(std::uint64_t /*seed*/) override { MaybeFail("seed"); }

 private:
  // Throws on the fail_after-th call (counting from 0) of `method` in a failing env,
  // among the calls on the threads fail_on_thread names.
  void MaybeFail(const char* method) {
    if (!fails_ || fail_in_ != method || !OnChosenThread() || calls_++ != fail_after_) return;
    if (fail_with_ == "non_std") throw 42;  // NOLINT: what third-party code may throw
    throw std::runtime_error(std::string("injected fault in ") + method);
  }

  void Sleep() const {
    if (sleep_.count() > 0) std::this_thread::sleep_for(sleep_);
  }

  bool OnChosenThread() const {
    if (fail_on_thread_ == "any") return true;
    char name[16] = "";
    pthread_getname_np(pthread_self(), name, sizeof(name));
    return (std::strcmp(name, kWorkerThreadName) == 0) == (fail_on_thread_ == "worker");
  }

  int env_index_;
  std::string fail_in_;
  bool fails_;
  std::int64_t fail_after_;
  std::string fail_with_;
  std::string fail_on_thread_;
  int episode_length_;
  std::chrono::microseconds sleep_;
  std::int64_t calls_ = 0;
  std::int32_t steps_ = 0;
};

}  // namespace

void RegisterFaultInjectionTask(TaskRegistry& registry) {
  if (registry.Has(kTaskId)) return;
  TaskDef task;
  task.id = kTaskId;
  task.options = {
      OptionDef::Int("max_episode_steps", 1000, "steps before truncation", 1),
      OptionDef::String("fail_in", "none", "the method that throws",
                        {"none", "reset", "step", "render", "seed"}),
      OptionDef::Int("fail_env_id", 0, "the env that throws; -1: every env", -1),
      OptionDef::Int("fail_after", 0, "calls of that method before the one that throws", 0),
      OptionDef::String("fail_with", "exception",
                        "exception: a std::runtime_error; non_std: an int", {"exception", "non_std"}),
      OptionDef::String("fail_on_thread", "any",
                        "any; worker: only on the pool's workers; caller: only on other threads "
                        "(the one waiting in recv(), XLA's)",
                        {"any", "worker", "caller"}),
      OptionDef::Int("episode_length", 0, "steps before the env terminates; 0: never", 0),
      OptionDef::Int("num_actions", 2, "actions 0..num_actions-1; the reward is the action", 1),
      OptionDef::Int("sleep_us", 0, "microseconds each reset, step and render sleeps", 0,
                     10000000),
  };
  task.make_spec = [](const Config& config) {
    EnvSpec spec;
    spec.obs.push_back(MakeArraySpec<std::int32_t>("obs", {}));
    spec.action = DiscreteActionSpec(static_cast<int>(config.GetInt("num_actions")));
    spec.render_shape = {kFrameSize, kFrameSize};
    spec.render_fps = 1.0;
    return spec;
  };
  task.make_env = [](const EnvSpec& spec, int env_index, std::uint64_t) {
    return std::make_unique<FaultInjectionEnv>(spec, env_index);
  };
  registry.Add(std::move(task));
}

}  // namespace envpool_core::testing
