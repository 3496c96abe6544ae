// The engine's hot path allocates nothing: once a pool has stepped for a while,
// Send (which copies the actions) / WaitForBatch / TakeBatch / Release and the
// workers' steps (auto-resets included) make no call to operator new, on any
// thread. This program replaces the global operator new with one that counts,
// steps CartPole (random actions: an episode ends every ~20 steps) in sync and
// async mode, with sends of at most and of more than 64 env ids, and fails if
// the count moves after the warm-up. In a build with the Atari or MuJoCo family,
//   hot_path_alloc_test [--atari ROM_DIR] [--mujoco ASSET_DIR]
// does the same for Pong-v5, Hopper-v4 and Humanoid-v4 (a 25-step time limit
// makes the resets). ALE's reset_game allocates one object per game reset
// (StellaEnvironment::getWrapper, ALE's code), so Pong may make one call per
// episode and no more: its steps and the rest of its reset allocate nothing.
// tests/test_engine_stress.py builds and runs it (CartPole).
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <new>
#include <random>
#include <string>
#include <vector>

#include "check.h"
#include "classic/register.h"
#include "core/array_spec.h"
#include "core/env_pool.h"
#if defined(ENVPOOL_CORE_WITH_ATARI)
#include "atari/register.h"
#endif
#if defined(ENVPOOL_CORE_WITH_MUJOCO)
#include "mujoco/register.h"
#endif

namespace {

std::atomic<bool> counting{false};
std::atomic<long> news{0};

void* Allocate(std::size_t size, std::size_t align) {
  if (counting.load(std::memory_order_relaxed)) news.fetch_add(1, std::memory_order_relaxed);
  if (size == 0) size = 1;
  void* p = align <= alignof(std::max_align_t)
                ? std::malloc(size)
                : std::aligned_alloc(align, (size + align - 1) / align * align);
  return p;
}

}  // namespace

void* operator new(std::size_t size) {
  void* p = Allocate(size, alignof(std::max_align_t));
  if (p == nullptr) throw std::bad_alloc();
  return p;
}
void* operator new[](std::size_t size) { return operator new(size); }
void* operator new(std::size_t size, std::align_val_t align) {
  void* p = Allocate(size, static_cast<std::size_t>(align));
  if (p == nullptr) throw std::bad_alloc();
  return p;
}
void* operator new[](std::size_t size, std::align_val_t align) {
  return operator new(size, align);
}
void* operator new(std::size_t size, const std::nothrow_t&) noexcept {
  return Allocate(size, alignof(std::max_align_t));
}
void* operator new[](std::size_t size, const std::nothrow_t&) noexcept {
  return Allocate(size, alignof(std::max_align_t));
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }

using namespace envpool_core;

namespace {

// allowed_per_episode: the operator new calls an env's own library makes per reset.
void Run(const std::string& task, int num_envs, int batch_size, int num_threads,
         std::int64_t max_episode_steps = 0, long allowed_per_episode = 0) {
  std::map<std::string, ConfigValue> kwargs = {{"num_envs", std::int64_t{num_envs}},
                                               {"batch_size", std::int64_t{batch_size}},
                                               {"num_threads", std::int64_t{num_threads}}};
  if (max_episode_steps > 0) kwargs["max_episode_steps"] = max_episode_steps;
  const TaskRegistry& reg = TaskRegistry::Global();
  EnvPool pool(reg.Get(task), reg.MakeSpec(task, kwargs));
  const ArraySpec& action = pool.spec().action;
  // Discrete actions (CartPole, Atari) are drawn from {0, 1}; continuous ones stay 0.
  const bool discrete = action.dtype == DType::kInt32;
  const auto n = static_cast<std::size_t>(num_envs);
  // One buffer, reused for every send: Send copies what it needs.
  std::vector<std::uint8_t> actions(n * action.NumBytes());
  std::vector<std::int32_t> ids(n);
  for (int i = 0; i < num_envs; ++i) ids[static_cast<std::size_t>(i)] = i;
  std::mt19937 rng(0);
  pool.Reset(ids.data(), num_envs);
  const int warm_up = 500;
  const int measured = 5000;
  long measured_episodes = 0;  // their resets run while counting (the last warm-up batch's too)
  for (int it = 0; it < warm_up + measured; ++it) {
    if (it == warm_up) counting.store(true);
    while (!pool.WaitForBatch(std::chrono::milliseconds(100))) {
    }
    int rows;
    OutputBlock* block = pool.TakeBatch(&rows);
    const auto* got = reinterpret_cast<const std::int32_t*>(block->column(kColEnvId));
    const auto* done = reinterpret_cast<const bool*>(block->column(kColDone));
    for (int r = 0; r < rows; ++r) {
      ids[static_cast<std::size_t>(r)] = got[r];
      if (it >= warm_up - 1) measured_episodes += done[r];
    }
    block->Release();
    if (discrete) {
      for (int r = 0; r < rows; ++r) {
        auto value = static_cast<std::int32_t>(rng() % 2);
        std::memcpy(actions.data() + sizeof(value) * static_cast<std::size_t>(r), &value,
                    sizeof(value));
      }
    }
    pool.Send(actions.data(), action.dtype, ids.data(), rows);
  }
  counting.store(false);
  long count = news.exchange(0);
  std::printf("%s, num_envs %d, batch_size %d, num_threads %d: %ld operator new calls in %d "
              "batches after the warm-up, which ended %ld episodes\n",
              task.c_str(), num_envs, batch_size, num_threads, count, measured,
              measured_episodes);
  ENVPOOL_CHECK(measured_episodes > measured / 20);  // auto-resets were on the measured path
  ENVPOOL_CHECK(count <= allowed_per_episode * measured_episodes);
  pool.Close();
}

void Fail(const char* what) {
  std::fprintf(stderr, "hot_path_alloc_test: %s\n", what);
  std::exit(2);
}

}  // namespace

int main(int argc, char** argv) {
  RegisterClassicTasks(TaskRegistry::Global());
  Run("CartPole-v1", 8, 8, 2);     // sync
  Run("CartPole-v1", 100, 100, 2);  // sync, more than 64 ids per send
  Run("CartPole-v1", 16, 4, 2);    // async
  Run("CartPole-v1", 120, 80, 3);  // async, more than 64 ids per send
  for (int i = 1; i < argc; i += 2) {
    std::string flag = argv[i];
    if (i + 1 >= argc) Fail("a flag without its folder");
    if (flag == "--atari") {
#if defined(ENVPOOL_CORE_WITH_ATARI)
      RegisterAtariTasks(TaskRegistry::Global(), argv[i + 1]);
      Run("Pong-v5", 4, 4, 2, 25, 1);
      Run("Pong-v5", 8, 4, 2, 25, 1);
#else
      Fail("--atari: this build has no Atari family");
#endif
    } else if (flag == "--mujoco") {
#if defined(ENVPOOL_CORE_WITH_MUJOCO)
      RegisterMujocoTasks(TaskRegistry::Global(), argv[i + 1]);
      Run("Hopper-v4", 8, 8, 2, 25);
      Run("Humanoid-v4", 8, 4, 2, 25);
#else
      Fail("--mujoco: this build has no MuJoCo family");
#endif
    } else {
      Fail("unknown flag (usage: hot_path_alloc_test [--atari ROM_DIR] [--mujoco ASSET_DIR])");
    }
  }
  std::puts("hot_path_alloc_test: ok");
  return 0;
}
