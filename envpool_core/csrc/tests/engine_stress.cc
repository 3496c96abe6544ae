// Stress driver for the engine without Python, for the sanitizer builds:
//   cmake -S envpool_core -B build/tsan -DENVPOOL_CORE_TSAN=ON
//         -DENVPOOL_CORE_WITH_ATARI=OFF -DENVPOOL_CORE_WITH_MUJOCO=OFF
//   cmake --build build/tsan --target engine_stress
//   build/tsan/engine_stress
// Steps FaultInjection-v0 (the test task, here with no fault: its reward is the
// action it was sent, its episodes end every 20 steps) in sync and async mode
// with several workers and checks, in every configuration:
// - every row of every batch is written once by the env it names: ids in a
//   batch are distinct, and each env's elapsed_step goes up by one per step
//   (0 after a done), so a row claimed twice or left stale shows up;
// - each env steps with the action sent to it, although the one action buffer
//   is overwritten as soon as Send() returns (Send copies);
// - sync mode: rows in the order sent, every env served every time;
// - async mode: every env is served in proportion (within kFairness of the mean
//   count) and in the last quarter of the run, so an env lost mid-run or
//   starved fails even while the others keep batches completing.
// tests/test_engine_stress.py builds and runs it (without sanitizers) in CI.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "core/env_pool.h"
#include "testing/fault_injection.h"

using namespace envpool_core;

namespace {

// Async mode: the fewest and most batches an env may be in, relative to the
// mean. The env-id queue is FIFO, so counts are near equal; the slack covers a
// worker preempted mid-step on a loaded machine (it holds one env meanwhile),
// over runs of a second or more.
constexpr double kFairness = 3.0;

void Check(bool ok, const char* what, int num_envs, int batch_size, int num_threads) {
  if (!ok) {
    std::fprintf(stderr, "engine_stress: check failed (num_envs %d, batch_size %d, "
                 "num_threads %d): %s\n", num_envs, batch_size, num_threads, what);
    std::exit(1);
  }
}

void Run(int num_envs, int batch_size, int num_threads, int iterations) {
  auto check = [&](bool ok, const char* what) {
    Check(ok, what, num_envs, batch_size, num_threads);
  };
  std::map<std::string, ConfigValue> kwargs = {{"num_envs", std::int64_t{num_envs}},
                                               {"batch_size", std::int64_t{batch_size}},
                                               {"num_threads", std::int64_t{num_threads}},
                                               {"episode_length", std::int64_t{20}}};
  const TaskRegistry& reg = TaskRegistry::Global();
  EnvPool pool(reg.Get("FaultInjection-v0"), reg.MakeSpec("FaultInjection-v0", kwargs));
  const auto n = static_cast<std::size_t>(num_envs);
  std::vector<std::int32_t> ids(n);
  for (int i = 0; i < num_envs; ++i) ids[static_cast<std::size_t>(i)] = i;
  std::mt19937 rng(0);
  pool.Reset(ids.data(), num_envs);
  std::vector<int> served(n, 0);
  std::vector<int> served_last_quarter(n, 0);
  // What each env's next row must say: elapsed_step 0 after a reset or a done.
  std::vector<std::int32_t> next_elapsed(n, 0);
  std::vector<std::int32_t> sent_action(n, 0);
  std::vector<std::int32_t> actions(n);
  std::vector<char> in_batch(n, 0);
  for (int it = 0; it < iterations; ++it) {
    while (!pool.WaitForBatch(std::chrono::milliseconds(100))) {
    }
    int rows;
    OutputBlock* block = pool.TakeBatch(&rows);
    check(rows == batch_size, "batch has batch_size rows");
    const auto* got = reinterpret_cast<const std::int32_t*>(block->column(kColEnvId));
    const auto* elapsed = reinterpret_cast<const std::int32_t*>(block->column(kColElapsedStep));
    const auto* done = reinterpret_cast<const bool*>(block->column(kColDone));
    const auto* reward = reinterpret_cast<const float*>(block->column(kColReward));
    std::vector<std::int32_t> next(got, got + rows);
    if (batch_size == num_envs) {
      for (int r = 0; r < rows; ++r) check(got[r] == ids[static_cast<std::size_t>(r)], "sync order");
    }
    for (int r = 0; r < rows; ++r) {
      check(got[r] >= 0 && got[r] < num_envs, "env_id in range");
      auto id = static_cast<std::size_t>(got[r]);
      check(!in_batch[id], "an env appears once per batch");
      in_batch[id] = 1;
      check(elapsed[r] == next_elapsed[id], "elapsed_step advances by one step per row");
      // A reset row (elapsed 0) ignored its action and reports reward 0.
      check(reward[r] == static_cast<float>(elapsed[r] == 0 ? 0 : sent_action[id]),
            "each env steps with the action sent to it");
      next_elapsed[id] = done[r] ? 0 : elapsed[r] + 1;
      ++served[id];
      if (it >= iterations - iterations / 4) ++served_last_quarter[id];
    }
    for (std::int32_t id : next) in_batch[static_cast<std::size_t>(id)] = 0;
    block->Release();
    if (batch_size == num_envs) std::shuffle(next.begin(), next.end(), rng);
    ids = next;
    for (int r = 0; r < rows; ++r) {
      actions[static_cast<std::size_t>(r)] = static_cast<std::int32_t>(rng() % 2);
      sent_action[static_cast<std::size_t>(ids[static_cast<std::size_t>(r)])] =
          actions[static_cast<std::size_t>(r)];
    }
    pool.Send(actions.data(), DType::kInt32, ids.data(), rows);
    // The caller's buffer is its own again: what the workers read is the copy.
    for (int r = 0; r < rows; ++r) actions[static_cast<std::size_t>(r)] ^= 1;
  }
  if (batch_size == num_envs) {
    for (int s : served) check(s == iterations, "sync mode: every env in every batch");
  } else {
    double mean = static_cast<double>(iterations) * batch_size / num_envs;
    for (int s : served) {
      check(s >= mean / kFairness, "async mode: no env starves (count >= mean / kFairness)");
      check(s <= mean * kFairness, "async mode: no env hogs (count <= mean * kFairness)");
    }
    for (int s : served_last_quarter) {
      check(s > 0, "async mode: every env still served in the last quarter of the run");
    }
  }
  pool.Close();
}

}  // namespace

int main() {
  testing::RegisterFaultInjectionTask(TaskRegistry::Global());
  Run(8, 8, 1, 2000);
  Run(8, 8, 3, 2000);
  Run(1, 1, 2, 2000);
  // Sync mode with more threads than cores: envs change threads all the time.
  Run(16, 16, 3, 20000);
  Run(7, 7, 4, 20000);
  // Async runs long enough (a second or more) that a preempted worker cannot
  // starve one env for a large part of the run.
  Run(10, 4, 3, 300000);
  Run(16, 3, 4, 300000);
  // Long async runs with more workers than this machine class has cores: workers
  // get preempted mid-pop, which once made the env-id queue drop envs for good.
  Run(16, 8, 2, 1000000);
  Run(6, 2, 3, 1000000);
  std::puts("engine_stress: ok");
  return 0;
}
