// The engine: a pool of envs stepped by worker threads into output blocks.
//
//   Send(actions, ids) -> StepperQueues -> workers (and the waiting caller)
//   step envs, each writing straight into a row of the current output block ->
//   WaitForBatch() / TakeBatch() hand the filled block to the caller.
//
// Async mode: each env is queued on the worker that stepped it last (see
// stepper_queues.h; workers are steppers 0..num_threads-1, the caller, which
// only steals, is stepper num_threads). Sync mode: one queue for all.
//
// Sync mode (batch_size == num_envs): rows come back in the order the ids were
// sent; a subset of ids may be sent. Async mode (batch_size < num_envs): a batch
// is the first batch_size envs to finish. An env is "in flight" from the moment
// an action (or reset) is sent to it until its row is taken; sending to an env
// in flight is an error, so each env has at most one pending action, which
// Send() copies into the env's own row of engine-owned storage.
//
// Failures: an env that throws (in Reset, Step or its pixel rendering) still
// completes its row, so nothing waits forever; the pool is then broken and
// every later call but Close() throws EnvError, whose message names the
// task, the env and the original error. A throw in Render() only fails that
// render(): rendering leaves the envs' state as it was.
//
// Thread safety: Send/Reset/WaitForBatch/TakeBatch/Render/Close are called from
// one caller thread at a time (the Python layer holds a lock for them).
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "core/env.h"
#include "core/env_id_queue.h"
#include "core/output_block.h"
#include "core/stepper_queues.h"
#include "core/task_registry.h"

namespace envpool_core {

// The name of the pool's worker threads (what top -H, gdb and py-spy show).
inline constexpr const char* kWorkerThreadName = "envpool-worker";

// An env's failure: thrown by render() when an env's Render threw, and by every
// call on a pool one of whose envs failed in Reset or Step (see above).
struct EnvError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class EnvPool {
 public:
  // Creates the envs of `spec` (in parallel) and starts the workers. Throws
  // EnvError naming the env when an env's constructor fails at run time
  // (MuJoCo out of memory, say), its own exception when that is not a
  // std::runtime_error (a bad option: std::invalid_argument), and
  // std::runtime_error when the threads cannot be started (nothing is left
  // running).
  EnvPool(const TaskDef& task, EnvSpec spec);
  ~EnvPool();
  EnvPool(const EnvPool&) = delete;
  EnvPool& operator=(const EnvPool&) = delete;

  const EnvSpec& spec() const { return spec_; }
  int num_envs() const { return num_envs_; }
  int batch_size() const { return batch_size_; }
  bool is_sync() const { return batch_size_ == num_envs_; }
  bool closed() const { return closed_; }
  const BlockLayout& layout() const { return blocks_->layout(); }

  // Copies one action per id (`n` rows laid out as spec().action, in `dtype`:
  // the action's own, or its narrow form, see CopyElements) into engine-owned
  // storage and queues the steps: the caller may reuse `actions` on return.
  // Validates ids (range, duplicates, in flight) and the action values, and
  // throws std::invalid_argument before queueing anything. n == 0 does nothing.
  void Send(const void* actions, DType dtype, const std::int32_t* ids, int n);
  // Queues a reset of each id (same id checks as Send). With `seeds`, env
  // ids[i] is first reseeded with seeds[i] (Env::Seed).
  void Reset(const std::int32_t* ids, int n, const std::uint64_t* seeds = nullptr);
  // Throws std::logic_error when no batch can ever complete (nothing or too
  // little in flight, counting `more_in_flight` envs about to be reset), so
  // that recv() never hangs.
  // what: the call that recv()s, named when the pool is closed (reset() recv()s too).
  void CheckRecvPossible(int more_in_flight = 0, const char* what = "recv") const;
  // Runs queued env steps on the calling thread and waits until the next batch
  // is complete, an env has failed, or `timeout` passes. Returns false on the
  // timeout only.
  bool WaitForBatch(std::chrono::microseconds timeout);
  // Takes the completed batch: the block (with one reference, to Release())
  // and its number of rows. Only after WaitForBatch() returned true; throws
  // EnvError instead when an env failed.
  OutputBlock* TakeBatch(int* rows);
  // Renders envs that are not in flight into out (n x H x W x 3), one frame per
  // env on the worker threads in parallel; returns when all are written and
  // rethrows the first error an env's Render threw. Copies `ids` first. Needs no
  // lock of the caller's (the Python layer calls it without the GIL).
  void Render(const std::int32_t* ids, int n, std::uint8_t* out);
  // Stops and joins the workers once each has finished the env it is stepping;
  // envs still queued are not stepped. Needs no lock of the caller's (the
  // Python layer calls it without the GIL). Idempotent.
  void StopWorkers();
  // StopWorkers(), then frees the envs and blocks (results already handed out
  // stay valid). Idempotent.
  void Close();

 private:
  struct EnvSlot {
    std::unique_ptr<Env> env;
    std::uint8_t* action = nullptr;  // this env's row of actions_
    bool reset_requested = true;     // the pending item is a reset, not a step
    bool reseed = false;             // reset with Env::Seed(seed) first
    std::uint64_t seed = 0;
    std::int64_t claim = 0;  // sync mode: global row index
    int home = 0;  // async mode: the worker whose queue it joins, the last to step it
    std::int32_t elapsed_step = 0;
    bool needs_reset = true;
  };
  struct BlockSlot {
    OutputBlock* block = nullptr;
    std::atomic<int> done{0};
    std::atomic<int> expected{0};
  };

  // Throws when the pool is closed or broken.
  void CheckUsable(const char* what) const;
  void CheckIds(const std::int32_t* ids, int n, const char* what);
  void Enqueue(const std::int32_t* ids, int n);
  void StartWorkers();
  void WorkerLoop(int worker_index);
  void RunEnv(int env_id, int stepper);
  // Records the first failure of an env (what it was doing, its message).
  void Fail(int env_id, const char* stage, const char* message);
  void RenderOne(int index);
  bool BatchReady() const;
  void WakeWorkers(int n);

  EnvSpec spec_;
  int num_envs_;
  int batch_size_;
  int num_threads_;
  std::int32_t max_episode_steps_;
  std::vector<EnvSlot> envs_;
  std::vector<std::uint8_t> actions_;  // one row per env, spec_.action's layout
  std::shared_ptr<OutputBlockPool> blocks_;
  std::vector<BlockSlot> ring_;
  std::int64_t recv_block_ = 0;         // index of the next block to take
  std::int64_t sent_in_block_ = 0;      // sync mode: rows claimed in the current block
  std::atomic<std::int64_t> claims_{0};  // async mode: next row index
  int in_flight_count_ = 0;
  std::vector<bool> in_flight_;
  std::vector<std::uint32_t> id_stamps_;  // CheckIds' duplicate marks
  std::uint32_t id_epoch_ = 0;

  StepperQueues env_queues_;
  int caller_queue_ = 0;  // where the caller's next pop in recv() starts
  EnvIdQueue control_;  // stop and render tokens, for workers only
  std::vector<std::thread> workers_;
  alignas(64) std::atomic<std::uint32_t> work_epoch_{0};
  alignas(64) std::atomic<int> sleeping_workers_{0};
  alignas(64) std::atomic<bool> caller_waiting_{false};
  std::mutex caller_mutex_;
  std::condition_variable caller_cv_;
  bool closed_ = false;

  // The first env failure: set once (under caller_mutex_), then read freely.
  std::atomic<bool> broken_{false};
  std::string failure_;

  // The render() in progress: frame i of render_out_ is env render_ids_[i].
  std::vector<std::int32_t> render_ids_;
  std::uint8_t* render_out_ = nullptr;
  std::atomic<int> render_pending_{0};
  std::exception_ptr render_error_;  // guarded by caller_mutex_
};

}  // namespace envpool_core
