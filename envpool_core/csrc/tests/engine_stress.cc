// Stress driver for the engine without Python, for the sanitizer builds:
//   cmake -S envpool_core -B build/tsan -DENVPOOL_CORE_TSAN=ON
//         -DENVPOOL_CORE_WITH_ATARI=OFF -DENVPOOL_CORE_WITH_MUJOCO=OFF
//   cmake --build build/tsan --target engine_stress
//   build/tsan/engine_stress
// Steps CartPole in sync and async mode with several workers and checks the
// invariants the Python tests check (every env served once per send, rows in order).
// tests/test_engine_stress.py builds and runs it (without sanitizers) in CI.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "classic/register.h"
#include "core/env_pool.h"

using namespace envpool_core;

namespace {

void Check(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "engine_stress: check failed: %s\n", what);
    std::exit(1);
  }
}

// The pool reads actions in place until every env of a send has read its own,
// then hands the buffer back here.
void FreeActions(void* owner) { delete static_cast<std::vector<std::int32_t>*>(owner); }

void Run(int num_envs, int batch_size, int num_threads, int iterations) {
  std::map<std::string, ConfigValue> kwargs = {{"num_envs", std::int64_t{num_envs}},
                                               {"batch_size", std::int64_t{batch_size}},
                                               {"num_threads", std::int64_t{num_threads}}};
  const TaskRegistry& reg = TaskRegistry::Global();
  EnvPool pool(reg.Get("CartPole-v1"), reg.MakeSpec("CartPole-v1", kwargs), FreeActions);
  std::vector<std::int32_t> ids(static_cast<std::size_t>(num_envs));
  for (int i = 0; i < num_envs; ++i) ids[static_cast<std::size_t>(i)] = i;
  std::mt19937 rng(0);
  pool.Reset(ids.data(), num_envs);
  std::vector<int> served(static_cast<std::size_t>(num_envs), 0);
  for (int it = 0; it < iterations; ++it) {
    while (!pool.WaitForBatch(std::chrono::milliseconds(100))) {
    }
    int rows;
    OutputBlock* block = pool.TakeBatch(&rows);
    Check(rows == batch_size, "batch has batch_size rows");
    const auto* got = reinterpret_cast<const std::int32_t*>(block->column(kColEnvId));
    std::vector<std::int32_t> next(got, got + rows);
    if (batch_size == num_envs) {
      for (int r = 0; r < rows; ++r) Check(got[r] == ids[static_cast<std::size_t>(r)], "sync order");
    }
    for (std::int32_t id : next) ++served[static_cast<std::size_t>(id)];
    block->Release();
    pool.ReleaseConsumedActions();
    if (batch_size == num_envs) std::shuffle(next.begin(), next.end(), rng);
    ids = next;
    auto* actions = new std::vector<std::int32_t>(static_cast<std::size_t>(rows));
    for (auto& a : *actions) a = static_cast<std::int32_t>(rng() % 2);
    pool.Send(reinterpret_cast<const std::uint8_t*>(actions->data()), ids.data(), rows, actions);
  }
  for (int s : served) Check(s > 0, "every env served");
  pool.Close();
}

}  // namespace

int main() {
  RegisterClassicTasks(TaskRegistry::Global());
  Run(8, 8, 1, 2000);
  Run(8, 8, 3, 2000);
  Run(1, 1, 2, 2000);
  Run(10, 4, 3, 4000);
  Run(16, 3, 4, 4000);
  // Long async runs with more workers than this machine class has cores: workers
  // get preempted mid-pop, which once made the env-id queue drop envs for good.
  Run(16, 8, 2, 1000000);
  Run(6, 2, 3, 1000000);
  std::puts("engine_stress: ok");
  return 0;
}
