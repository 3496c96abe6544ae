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
// in flight is an error, so each env has at most one pending action.
//
// Thread safety: Send/Reset/WaitForBatch/TakeBatch/Render/Close are called from
// one caller thread at a time (the Python layer holds the GIL for them, except
// inside WaitForBatch).
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "core/env.h"
#include "core/env_id_queue.h"
#include "core/output_block.h"
#include "core/stepper_queues.h"
#include "core/task_registry.h"

namespace envpool_core {

class EnvPool {
 public:
  // Creates the envs of `spec` (in parallel) and starts the workers.
  // `release_action` is called from ReleaseConsumedActions() for the owner
  // token of each Send whose actions all envs have read.
  EnvPool(const TaskDef& task, EnvSpec spec, void (*release_action)(void*) = nullptr);
  ~EnvPool();
  EnvPool(const EnvPool&) = delete;
  EnvPool& operator=(const EnvPool&) = delete;

  const EnvSpec& spec() const { return spec_; }
  int num_envs() const { return num_envs_; }
  int batch_size() const { return batch_size_; }
  bool is_sync() const { return batch_size_ == num_envs_; }
  bool closed() const { return closed_; }
  const BlockLayout& layout() const { return blocks_->layout(); }

  // Queues one action per id; actions are read in place by the workers, so the
  // memory must stay valid until ReleaseConsumedActions() returns `owner`.
  // Validates ids (range, duplicates, in flight) and throws std::invalid_argument
  // before queueing anything. Action values are validated by the caller.
  void Send(const std::uint8_t* actions, const std::int32_t* ids, int n, void* owner);
  // Queues a reset of each id (same id checks as Send).
  void Reset(const std::int32_t* ids, int n);
  // Throws std::logic_error when no batch can ever complete (nothing or too
  // little in flight, counting `more_in_flight` envs about to be reset), so
  // that recv() never hangs.
  // what: the call that recv()s, named when the pool is closed (reset() recv()s too).
  void CheckRecvPossible(int more_in_flight = 0, const char* what = "recv") const;
  // Runs queued env steps on the calling thread and waits until the next batch
  // is complete or `timeout` passes. Returns true when the batch is ready.
  bool WaitForBatch(std::chrono::microseconds timeout);
  // Takes the completed batch: the block (with one reference, to Release())
  // and its number of rows. Only after WaitForBatch() returned true.
  OutputBlock* TakeBatch(int* rows);
  // Calls release_action(owner) for every Send whose actions are all read.
  void ReleaseConsumedActions();
  // Renders envs that are not in flight into out (n x H x W x 3), one frame per
  // env on the worker threads in parallel; returns when all are written and
  // rethrows the first error an env's Render threw. Needs no lock of the
  // caller's (the Python layer calls it without the GIL).
  void Render(const std::int32_t* ids, int n, std::uint8_t* out);
  // Stops and joins the workers; envs already queued are stepped first. Needs
  // no lock of the caller's (the Python layer calls it without the GIL).
  // Idempotent.
  void StopWorkers();
  // StopWorkers(), then releases all held actions and frees the envs and
  // blocks (results already handed out stay valid). Idempotent.
  void Close();

 private:
  struct EnvSlot {
    std::unique_ptr<Env> env;
    const std::uint8_t* action = nullptr;  // null: reset requested
    std::int64_t claim = 0;                // sync mode: global row index
    int action_record = -1;
    int home = 0;  // async mode: the worker whose queue it joins, the last to step it
    std::int32_t elapsed_step = 0;
    bool needs_reset = true;
  };
  struct BlockSlot {
    OutputBlock* block = nullptr;
    std::atomic<int> done{0};
    std::atomic<int> expected{0};
  };
  struct ActionRecord {
    std::atomic<int> remaining{0};
    void* owner = nullptr;
  };

  void CheckIds(const std::int32_t* ids, int n, const char* what);
  void Enqueue(const std::int32_t* ids, int n);
  void WorkerLoop(int worker_index);
  void RunEnv(int env_id, int stepper);
  void RenderOne(int index);
  bool BatchReady() const;
  void WakeWorkers(int n);

  EnvSpec spec_;
  int num_envs_;
  int batch_size_;
  int num_threads_;
  std::int32_t max_episode_steps_;
  std::vector<EnvSlot> envs_;
  std::shared_ptr<OutputBlockPool> blocks_;
  std::vector<BlockSlot> ring_;
  std::int64_t recv_block_ = 0;         // index of the next block to take
  std::int64_t sent_in_block_ = 0;      // sync mode: rows claimed in the current block
  std::atomic<std::int64_t> claims_{0};  // async mode: next row index
  int in_flight_count_ = 0;
  std::vector<bool> in_flight_;
  std::vector<std::uint32_t> id_stamps_;  // CheckIds' duplicate marks
  std::uint32_t id_epoch_ = 0;
  std::vector<ActionRecord> action_records_;
  std::vector<int> free_records_;
  std::vector<int> active_records_;
  void (*release_action_)(void*);

  StepperQueues env_queues_;
  int caller_queue_ = 0;  // where the caller's next pop in recv() starts
  EnvIdQueue control_;  // stop and render tokens, for workers only
  std::vector<std::thread> workers_;
  std::atomic<bool> stop_{false};
  alignas(64) std::atomic<std::uint32_t> work_epoch_{0};
  alignas(64) std::atomic<int> sleeping_workers_{0};
  alignas(64) std::atomic<bool> caller_waiting_{false};
  std::mutex caller_mutex_;
  std::condition_variable caller_cv_;
  bool closed_ = false;

  // The render() in progress: frame i of render_out_ is env render_ids_[i].
  const std::int32_t* render_ids_ = nullptr;
  std::uint8_t* render_out_ = nullptr;
  std::atomic<int> render_pending_{0};
  std::exception_ptr render_error_;  // guarded by caller_mutex_
};

}  // namespace envpool_core
