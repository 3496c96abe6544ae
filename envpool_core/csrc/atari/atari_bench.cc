// atari_bench: steps one Atari env without Python, for the speed work of
// docs/speed.md (build with -DENVPOOL_CORE_ATARI_BENCH=ON).
//
//   atari_bench ROM_DIR [--task Pong-v5] [--steps N] [--seed S] [--stages [--ale-grayscale]]
//
// Default: steps a pool of one env (sync mode, as Python's step() drives it)
// with uniformly random actions and prints the CPU time per step as JSON. The
// profile-guided build (ENVPOOL_CORE_PGO) runs this as its training workload.
//
// --stages: beside the pool's env, a replica of AtariEnv::Step's default path
// (frame skip 4, grayscale, max-pool, 84x84 area resize, stack 4) built from
// the same ALE and image functions times each stage; its stacked observation
// is checked against the env's at every step, so the stages timed are the
// work the env does. Prints the median and mean of each stage in us per step.
// --ale-grayscale: the replica converts screens with ALE's own
// applyPaletteGrayscale and max-pools in a separate pass (the env's path
// before GrayscaleTable), for comparison.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "ale/ale_interface.hpp"
#include "atari/atari_env.h"
#include "atari/image_ops.h"
#include "atari/register.h"
#include "core/env_pool.h"

using namespace envpool_core;
using Clock = std::chrono::steady_clock;

namespace {

double ProcessCpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

double Micros(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::micro>(b - a).count();
}

[[noreturn]] void Fail(const std::string& what) {
  std::fprintf(stderr, "atari_bench: %s\n", what.c_str());
  std::exit(1);
}

// One env in a sync pool: Step() sends an action, waits, and returns the row.
class OneEnv {
 public:
  OneEnv(const std::string& task, std::int64_t seed, int noop_max)
      : pool_(TaskRegistry::Global().Get(task),
              TaskRegistry::Global().MakeSpec(
                  task, {{"num_envs", std::int64_t{1}},
                         {"num_threads", std::int64_t{1}},
                         {"seed", seed},
                         {"noop_max", std::int64_t{noop_max}}})) {
    Finish(Wait(nullptr));
  }

  int num_actions() const { return static_cast<int>(pool_.spec().action.high.at(0)) + 1; }

  // Steps with `action`; returns the block (to Finish) holding the one row.
  OutputBlock* Step(std::int32_t action) {
    action_ = action;
    return Wait(&action_);
  }
  static const std::uint8_t* Obs(const OutputBlock* b) { return b->column(kNumCommonColumns); }
  static bool Done(const OutputBlock* b) { return *b->column(kColDone) != 0; }
  void Finish(OutputBlock* b) {
    b->Release();
    pool_.ReleaseConsumedActions();
  }

 private:
  OutputBlock* Wait(const std::int32_t* action) {
    const std::int32_t id = 0;
    if (action == nullptr) {
      pool_.Reset(&id, 1);
    } else {
      pool_.Send(reinterpret_cast<const std::uint8_t*>(action), &id, 1, nullptr);
    }
    while (!pool_.WaitForBatch(std::chrono::seconds(1))) {
    }
    int rows = 0;
    return pool_.TakeBatch(&rows);
  }

  EnvPool pool_;
  std::int32_t action_ = 0;
};

double Median(std::vector<double> v) {
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2), v.end());
  return v[v.size() / 2];
}

int RunSteps(const std::string& task, int steps, std::int64_t seed) {
  OneEnv env(task, seed, 30);
  std::mt19937 rng(static_cast<std::uint32_t>(seed));
  const auto n = static_cast<std::uint32_t>(env.num_actions());
  std::vector<double> durations(static_cast<std::size_t>(steps));
  double cpu0 = ProcessCpuSeconds();
  auto wall0 = Clock::now();
  for (int i = 0; i < steps; ++i) {
    auto t0 = Clock::now();
    env.Finish(env.Step(static_cast<std::int32_t>(rng() % n)));
    durations[static_cast<std::size_t>(i)] = Micros(t0, Clock::now());
  }
  double cpu = ProcessCpuSeconds() - cpu0;
  std::printf("{\"task\": \"%s\", \"steps\": %d, \"cpu_us_per_step\": %.3f, "
              "\"wall_us_per_step\": %.3f, \"median_step_us\": %.3f}\n",
              task.c_str(), steps, 1e6 * cpu / steps, Micros(wall0, Clock::now()) / steps,
              Median(durations));
  return 0;
}

// The stages of AtariEnv::Step (default options), each timed on its own.
enum Stage { kEmulate, kGrayscale, kMaxPool, kResize, kStack, kReplicaTotal, kEnvStep, kNumStages };
const char* const kStageNames[kNumStages] = {
    "emulate", "screen_grayscale", "max_pool", "resize", "stack", "replica_total", "env_step"};

class Replica {
 public:
  Replica(const std::string& rom_path, std::int64_t seed, bool ale_grayscale)
      : ale_(LoadedAle(rom_path, seed)),
        ale_grayscale_(ale_grayscale),
        pixels_(ale_->getScreen().height() * ale_->getScreen().width()),
        area_(static_cast<int>(ale_->getScreen().height()),
              static_cast<int>(ale_->getScreen().width()), kSize, kSize) {
    for (ale::Action a : ale_->getMinimalActionSet()) {
      actions_.push_back(a);
      if (a == ale::PLAYER_A_FIRE) fire_reset_ = true;
    }
    for (auto& r : raw_) r.assign(pixels_, 0);
    frames_.assign(kFrame * kStack, 0);
    obs_.assign(kFrame * kStack, 0);
    gray_ = atari::AleGrayscaleTable(*ale_);
  }

  // noop_max 0: reset, FIRE where the game has it, fill the stack.
  void Reset() {
    ale_->reset_game();
    if (fire_reset_) {
      ale_->act(ale::PLAYER_A_FIRE);
      if (ale_->game_over()) ale_->reset_game();
    }
    Capture(raw_[0].data());
    std::fill(raw_[1].begin(), raw_[1].end(), std::uint8_t{0});
    newest_ = (newest_ + 1) % kStack;
    area_.Resize(raw_[0].data(), 1, 0, Slot(newest_));
    for (int i = 0; i < kStack; ++i) {
      if (i != newest_) std::memcpy(Slot(i), Slot(newest_), kFrame);
    }
    WriteObs();
  }

  // One agent step; adds each stage's time to `t` and returns game over.
  bool Step(std::int32_t action, double* t) {
    ale::Action a = actions_[static_cast<std::size_t>(action)];
    bool game_over = false;
    auto c0 = Clock::now();
    double capture = 0.0;
    bool pooled = false;
    for (int f = 0; f < 4; ++f) {
      ale_->act(a);
      game_over = ale_->game_over();
      if (game_over) break;
      if (f >= 2) {
        auto g0 = Clock::now();
        if (f == 3 && !ale_grayscale_) {
          gray_->ApplyMax(Screen(), raw_[1].data(), raw_[0].data(), pixels_);
          pooled = true;
        }
        if (!pooled) Capture(raw_[f == 2 ? 1 : 0].data());
        capture += Micros(g0, Clock::now());
      }
    }
    auto c1 = Clock::now();
    t[kEmulate] = Micros(c0, c1) - capture;
    t[kGrayscale] = capture;
    if (!pooled) atari::MaxPool(raw_[0].data(), raw_[1].data(), raw_[0].data(), pixels_);
    auto c2 = Clock::now();
    t[kMaxPool] = Micros(c1, c2);
    newest_ = (newest_ + 1) % kStack;
    area_.Resize(raw_[0].data(), 1, 0, Slot(newest_));
    auto c3 = Clock::now();
    t[kResize] = Micros(c2, c3);
    WriteObs();
    auto c4 = Clock::now();
    t[kStack] = Micros(c3, c4);
    t[kReplicaTotal] = Micros(c0, c4);
    return game_over;
  }

  const std::uint8_t* obs() const { return obs_.data(); }

 private:
  static constexpr int kSize = 84;
  static constexpr int kStack = 4;
  static constexpr std::size_t kFrame = kSize * kSize;

  // The screen's size is known once the ROM is loaded, and sizes area_.
  static std::unique_ptr<ale::ALEInterface> LoadedAle(const std::string& rom_path,
                                                      std::int64_t seed) {
    auto ale = std::make_unique<ale::ALEInterface>();
    ale->setFloat("repeat_action_probability", 0.0F);
    ale->setInt("random_seed", static_cast<int>(seed % 2147483648LL));
    ale->loadROM(rom_path);
    return ale;
  }
  std::uint8_t* Screen() { return ale_->getScreen().getArray(); }
  void Capture(std::uint8_t* raw) {
    if (ale_grayscale_) {
      ale_->theOSystem->colourPalette().applyPaletteGrayscale(raw, Screen(), pixels_);
    } else {
      gray_->Apply(Screen(), raw, pixels_);
    }
  }
  std::uint8_t* Slot(int i) { return frames_.data() + kFrame * static_cast<std::size_t>(i); }
  void WriteObs() {
    auto oldest = static_cast<std::size_t>((newest_ + 1) % kStack);
    std::size_t tail = (kStack - oldest) * kFrame;
    std::memcpy(obs_.data(), frames_.data() + oldest * kFrame, tail);
    if (oldest != 0) std::memcpy(obs_.data() + tail, frames_.data(), oldest * kFrame);
  }

  std::unique_ptr<ale::ALEInterface> ale_;
  bool ale_grayscale_;
  std::size_t pixels_;
  std::unique_ptr<atari::GrayscaleTable> gray_;
  std::vector<ale::Action> actions_;
  bool fire_reset_ = false;
  std::vector<std::uint8_t> raw_[2];
  std::vector<std::uint8_t> frames_;
  std::vector<std::uint8_t> obs_;
  int newest_ = 0;
  atari::AreaResizer area_;
};

int RunStages(const std::string& task, const std::string& rom_path, int steps, std::int64_t seed,
              bool ale_grayscale) {
  OneEnv env(task, seed, 0);
  Replica replica(rom_path, seed, ale_grayscale);
  replica.Reset();
  std::mt19937 rng(static_cast<std::uint32_t>(seed));
  const auto n = static_cast<std::uint32_t>(env.num_actions());
  std::vector<std::vector<double>> times(kNumStages, std::vector<double>(static_cast<std::size_t>(steps)));
  bool episode_over = false;
  int resets = 0;
  for (int i = 0; i < steps; ++i) {
    auto action = static_cast<std::int32_t>(rng() % n);
    if (episode_over) {
      // The pool resets the env on the action after an episode's end.
      env.Finish(env.Step(action));
      replica.Reset();
      episode_over = false;
      ++resets;
      action = static_cast<std::int32_t>(rng() % n);
    }
    double t[kNumStages];
    episode_over = replica.Step(action, t);
    auto e0 = Clock::now();
    OutputBlock* block = env.Step(action);
    t[kEnvStep] = Micros(e0, Clock::now());
    if (std::memcmp(OneEnv::Obs(block), replica.obs(), 4 * 84 * 84) != 0) {
      Fail("step " + std::to_string(i) + ": the replica's observation differs from the env's");
    }
    if (OneEnv::Done(block) != episode_over) Fail("the replica's episode end differs from the env's");
    env.Finish(block);
    for (int s = 0; s < kNumStages; ++s) times[static_cast<std::size_t>(s)][static_cast<std::size_t>(i)] = t[s];
  }
  std::printf("{\"task\": \"%s\", \"steps\": %d, \"resets\": %d, \"ale_grayscale\": %s, \"stages\": {",
              task.c_str(), steps, resets, ale_grayscale ? "true" : "false");
  for (int s = 0; s < kNumStages; ++s) {
    const auto& v = times[static_cast<std::size_t>(s)];
    double mean = 0.0;
    for (double x : v) mean += x;
    mean /= static_cast<double>(v.size());
    std::printf("%s\"%s\": {\"median_us\": %.3f, \"mean_us\": %.3f}", s ? ", " : "", kStageNames[s],
                Median(v), mean);
  }
  std::printf("}}\n");
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr,
                 "usage: atari_bench ROM_DIR [--task Pong-v5] [--steps N] [--seed S] "
                 "[--stages [--ale-grayscale]]\n");
    return 2;
  }
  std::string rom_dir = argv[1];
  std::string task = "Pong-v5";
  int steps = 2000;
  std::int64_t seed = 0;
  bool stages = false;
  bool ale_grayscale = false;
  for (int i = 2; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--stages") {
      stages = true;
    } else if (arg == "--ale-grayscale") {
      ale_grayscale = true;
    } else if (i + 1 < argc && arg == "--task") {
      task = argv[++i];
    } else if (i + 1 < argc && arg == "--steps") {
      steps = std::max(1, std::atoi(argv[++i]));
    } else if (i + 1 < argc && arg == "--seed") {
      seed = std::atoll(argv[++i]);
    } else {
      Fail("unknown argument " + arg);
    }
  }
  try {
    RegisterAtariTasks(TaskRegistry::Global(), rom_dir);
    if (!TaskRegistry::Global().Has(task)) Fail("no task " + task + " in " + rom_dir);
    if (!stages) return RunSteps(task, steps, seed);
    return RunStages(task, TaskRegistry::Global().Get(task).fixed.GetString("rom_path"), steps,
                     seed, ale_grayscale);
  } catch (const std::exception& e) {
    Fail(e.what());
  }
}
