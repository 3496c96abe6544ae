#include "core/env_pool.h"

#include <algorithm>
#include <cstring>
#include <exception>
#include <stdexcept>
#include <string>
#include <system_error>
#include <utility>

#if defined(__linux__)
#include <pthread.h>
#include <sched.h>
#endif

#include "core/cpu_relax.h"
#include "core/usable_cpus.h"

namespace envpool_core {

namespace {

// Spinning before sleeping keeps latency low when steps arrive back to back;
// the bound keeps idle workers from stealing a core from the caller for long.
// Bounded in time, not in iterations: a pause instruction takes from a few to
// over a hundred cycles depending on the CPU. These are about what the 2000
// and 1000 pause-and-look iterations they replace took on the AMD EPYC the
// engine was tuned on (docs/speed.md).
constexpr std::chrono::microseconds kWorkerSpinTime{60};
constexpr std::chrono::microseconds kCallerSpinTime{30};
// Spins between looks at the clock (a clock read costs about as much as a pause).
constexpr int kSpinsPerClockRead = 64;

// Spins (CpuRelax) until `done()` or `budget` has passed; returns done()'s last value.
template <typename Done>
bool SpinUntil(Done done, std::chrono::microseconds budget) {
  auto end = std::chrono::steady_clock::now() + budget;
  for (;;) {
    for (int i = 0; i < kSpinsPerClockRead; ++i) {
      CpuRelax();
      if (done()) return true;
    }
    if (std::chrono::steady_clock::now() >= end) return false;
  }
}
// Control tokens: stop, and kFirstRenderToken - i for frame i of the render()
// in progress.
constexpr int kStopToken = -1;
constexpr int kFirstRenderToken = -2;

void PinCurrentThread(int core) {
#if defined(__linux__)
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(core, &set);
  pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
#else
  (void)core;
#endif
}

}  // namespace

EnvPool::EnvPool(const TaskDef& task, EnvSpec spec)
    : spec_(std::move(spec)),
      num_envs_(static_cast<int>(spec_.config.GetInt("num_envs"))),
      batch_size_(static_cast<int>(spec_.config.GetInt("batch_size"))),
      num_threads_(static_cast<int>(spec_.config.GetInt("num_threads"))),
      max_episode_steps_(static_cast<std::int32_t>(spec_.config.GetInt("max_episode_steps"))),
      envs_(static_cast<std::size_t>(num_envs_)),
      actions_(spec_.action.NumBytes() * static_cast<std::size_t>(num_envs_)),
      blocks_(std::make_shared<OutputBlockPool>(BlockLayout(OutputColumns(spec_), batch_size_))),
      ring_(is_sync() ? 1 : static_cast<std::size_t>((num_envs_ + batch_size_ - 1) / batch_size_ + 1)),
      in_flight_(static_cast<std::size_t>(num_envs_), false),
      id_stamps_(static_cast<std::size_t>(num_envs_), 0U),
      env_queues_(is_sync() ? 1 : num_threads_, static_cast<std::size_t>(num_envs_)),
      control_(static_cast<std::size_t>(num_envs_ + num_threads_)),
      render_ids_(static_cast<std::size_t>(num_envs_)) {
  // Build the envs in parallel: some (Atari ROMs, MuJoCo models) take milliseconds each.
  const std::vector<std::int64_t>& seeds = spec_.config.GetIntList("seed");
  std::atomic<int> next{0};
  std::exception_ptr error;
  std::mutex error_mutex;
  auto build = [&] {
    for (int i = next.fetch_add(1); i < num_envs_; i = next.fetch_add(1)) {
      try {
        envs_[static_cast<std::size_t>(i)].env =
            task.make_env(spec_, i, static_cast<std::uint64_t>(seeds[static_cast<std::size_t>(i)]));
      } catch (const std::runtime_error& e) {
        // A failure of the env itself (MuJoCo out of memory, say), named as the
        // pool's later failures are; a bad argument stays a ValueError.
        std::lock_guard<std::mutex> lock(error_mutex);
        if (!error) {
          error = std::make_exception_ptr(EnvError("env " + std::to_string(i) + " of " +
                                                   spec_.config.GetString("task_id") +
                                                   " failed in make: " + e.what()));
        }
      } catch (...) {
        std::lock_guard<std::mutex> lock(error_mutex);
        if (!error) error = std::current_exception();
      }
    }
  };
  {
    std::vector<std::thread> builders;
    for (int t = 1; t < std::min(num_threads_, num_envs_); ++t) {
      try {
        builders.emplace_back(build);
      } catch (const std::system_error&) {
        break;  // the threads already started (and this one) build the rest
      }
    }
    build();
    for (auto& b : builders) b.join();
  }
  if (error) std::rethrow_exception(error);
  std::size_t action_bytes = spec_.action.NumBytes();
  for (int i = 0; i < num_envs_; ++i) {
    EnvSlot& slot = envs_[static_cast<std::size_t>(i)];
    slot.action = actions_.data() + action_bytes * static_cast<std::size_t>(i);
    slot.home = i % num_threads_;  // spread the first steps over the workers
  }
  for (auto& slot : ring_) {
    slot.block = blocks_->Acquire();
    slot.expected.store(is_sync() ? 0 : batch_size_, std::memory_order_relaxed);
  }
  try {
    StartWorkers();
  } catch (...) {
    Close();
    throw;
  }
}

void EnvPool::StartWorkers() {
  int offset = static_cast<int>(spec_.config.GetInt("thread_affinity_offset"));
  // Pinned to the CPUs the process may run on: CPU k of the machine may be outside its mask.
  std::vector<int> cpus = UsableCpus();
  for (int t = 0; t < num_threads_; ++t) {
    int cpu = cpus[static_cast<std::size_t>(offset + t) % cpus.size()];
    try {
      workers_.emplace_back([this, t, offset, cpu] {
#if defined(__linux__)
        pthread_setname_np(pthread_self(), kWorkerThreadName);
#endif
        if (offset >= 0) PinCurrentThread(cpu);
        WorkerLoop(t);
      });
    } catch (const std::system_error& e) {
      throw std::runtime_error("cannot start worker thread " + std::to_string(t + 1) + " of " +
                               std::to_string(num_threads_) + " (" + e.what() +
                               "): make the pool with fewer num_threads");
    }
  }
}

EnvPool::~EnvPool() { Close(); }

void EnvPool::CheckUsable(const char* what) const {
  if (closed_) throw std::logic_error(std::string("cannot ") + what + ": the pool is closed");
  if (broken_.load(std::memory_order_acquire)) throw EnvError(failure_);
}

void EnvPool::CheckIds(const std::int32_t* ids, int n, const char* what) {
  CheckUsable(what);
  for (int i = 0; i < n; ++i) {
    std::int32_t id = ids[i];
    if (id < 0 || id >= num_envs_) {
      throw std::invalid_argument("env_id " + std::to_string(id) + " is out of range [0, " +
                                  std::to_string(num_envs_) + ")");
    }
    if (in_flight_[static_cast<std::size_t>(id)]) {
      throw std::invalid_argument("env_id " + std::to_string(id) +
                                  " already has an action in flight: recv() its result before the next " +
                                  what + "()");
    }
  }
  // Duplicates: each id is stamped with this call's epoch, so a second sighting is
  // one compare (O(n), no allocation; checked after the cheap checks above, whose
  // errors come first).
  if (++id_epoch_ == 0) {  // wrapped: stamps of 2^32 calls ago would match again
    std::fill(id_stamps_.begin(), id_stamps_.end(), 0U);
    id_epoch_ = 1;
  }
  for (int i = 0; i < n; ++i) {
    std::uint32_t& stamp = id_stamps_[static_cast<std::size_t>(ids[i])];
    if (stamp == id_epoch_) {
      throw std::invalid_argument("env_id " + std::to_string(ids[i]) + " appears twice");
    }
    stamp = id_epoch_;
  }
}

void EnvPool::Send(const void* actions, DType dtype, const std::int32_t* ids, int n) {
  CheckIds(ids, n, "send");
  const ArraySpec& spec = spec_.action;
  std::size_t count = spec.NumElements();
  std::size_t row_bytes = count * DTypeSize(dtype);
  // The envs are not in flight (checked), so no worker reads their rows now.
  for (int i = 0; i < n; ++i) {
    std::uint8_t* row = envs_[static_cast<std::size_t>(ids[i])].action;
    CopyElements(dtype, static_cast<const std::uint8_t*>(actions) + row_bytes * static_cast<std::size_t>(i),
                 spec.dtype, row, count);
    // Checked once copied: the caller's array cannot change under the check.
    CheckActionValues(spec, row, count);
  }
  for (int i = 0; i < n; ++i) envs_[static_cast<std::size_t>(ids[i])].reset_requested = false;
  Enqueue(ids, n);
}

void EnvPool::Reset(const std::int32_t* ids, int n, const std::uint64_t* seeds) {
  CheckIds(ids, n, "reset");
  for (int i = 0; i < n; ++i) {
    EnvSlot& slot = envs_[static_cast<std::size_t>(ids[i])];
    slot.reset_requested = true;
    slot.reseed = seeds != nullptr;
    if (seeds != nullptr) slot.seed = seeds[i];
  }
  Enqueue(ids, n);
}

void EnvPool::Enqueue(const std::int32_t* ids, int n) {
  if (n == 0) return;
  for (int i = 0; i < n; ++i) {
    in_flight_[static_cast<std::size_t>(ids[i])] = true;
    if (is_sync()) {
      envs_[static_cast<std::size_t>(ids[i])].claim =
          recv_block_ * batch_size_ + sent_in_block_ + i;
    }
  }
  in_flight_count_ += n;
  if (is_sync()) {
    sent_in_block_ += n;
    ring_[0].expected.store(static_cast<int>(sent_in_block_), std::memory_order_release);
  }
  for (int i = 0; i < n; ++i) {
    env_queues_.Push(envs_[static_cast<std::size_t>(ids[i])].home, ids[i]);
  }
  // In sync mode the caller steps envs itself while it waits in recv(), so one
  // item is left to it: a single-env step then costs no thread wake-up at all.
  WakeWorkers(is_sync() && !spec_.steps_on_workers_only ? n - 1 : n);
}

void EnvPool::WakeWorkers(int n) {
  work_epoch_.fetch_add(1, std::memory_order_seq_cst);
  int sleeping = sleeping_workers_.load(std::memory_order_seq_cst);
  int wake = std::min(sleeping, n);
  if (wake <= 0) return;
  if (wake >= sleeping) {
    work_epoch_.notify_all();
  } else {
    for (int i = 0; i < wake; ++i) work_epoch_.notify_one();
  }
}

void EnvPool::WorkerLoop(int worker_index) {
  // Control tokens first: a render() waits for its frames while envs may be in
  // flight.
  auto pop = [&](int* id, bool* control) {
    *control = control_.TryPop(id);
    return *control || env_queues_.Pop(worker_index, id);
  };
  for (;;) {
    int id;
    bool control;
    bool got = pop(&id, &control) ||
               SpinUntil([&] { return pop(&id, &control); }, kWorkerSpinTime);
    if (!got) {
      std::uint32_t epoch = work_epoch_.load(std::memory_order_acquire);
      got = pop(&id, &control);
      if (!got) {
        sleeping_workers_.fetch_add(1, std::memory_order_seq_cst);
        if (work_epoch_.load(std::memory_order_seq_cst) == epoch) work_epoch_.wait(epoch);
        sleeping_workers_.fetch_sub(1, std::memory_order_seq_cst);
        continue;
      }
    }
    if (!control) {
      RunEnv(id, worker_index);
    } else if (id == kStopToken) {
      // Envs still queued are left: nobody can receive their results any more, and a
      // batch of long steps (interrupted by Ctrl-C, say) would hold close() up.
      return;
    } else {
      RenderOne(kFirstRenderToken - id);
    }
  }
}

void EnvPool::RunEnv(int env_id, int stepper) {
  EnvSlot& slot = envs_[static_cast<std::size_t>(env_id)];
  // Read by the caller's next Send() of this env, after it has taken the batch
  // that this row's done count below completes. The caller steps envs only
  // while it waits in recv(), so an env it steps keeps its worker.
  if (stepper < num_threads_) slot.home = stepper;
  // Async mode: acq_rel chains the claims, so whoever claims a row of block B
  // sees the caller's TakeBatch() of the block that last used B's ring slot (some
  // claim up to B's was for an env sent after that TakeBatch()).
  std::int64_t claim =
      is_sync() ? slot.claim : claims_.fetch_add(1, std::memory_order_acq_rel);
  BlockSlot& target = ring_[static_cast<std::size_t>((claim / batch_size_) %
                                                     static_cast<std::int64_t>(ring_.size()))];
  int row = static_cast<int>(claim % batch_size_);
  const BlockLayout& lay = blocks_->layout();
  OutputRow out(target.block->columns(), lay.row_bytes.data(), row,
                static_cast<int>(spec_.obs.size()));

  bool done = false;
  bool trunc = false;
  std::int32_t step_type = kStepFirst;
  bool resetting = slot.reset_requested || slot.needs_reset;
  // An env's exception completes its row all the same (so no wait hangs) and
  // breaks the pool; the row is never handed out.
  try {
    if (resetting) {
      // Auto-reset: the action sent after an episode ended is ignored.
      if (slot.reseed) {
        slot.reseed = false;
        slot.env->Seed(slot.seed);
      }
      if (slot.env->Reset(out)) slot.elapsed_step = 0;
      out.reward = 0.0F;
      out.discount = 1.0F;
      slot.needs_reset = false;
    } else {
      slot.env->Step(slot.action, out);
      ++slot.elapsed_step;
      trunc = !out.terminated && slot.elapsed_step >= max_episode_steps_;
      done = out.terminated || trunc;
      if (out.terminated) out.discount = 0.0F;
      slot.needs_reset = done;
      step_type = done ? kStepLast : kStepMid;
    }
  } catch (const std::exception& e) {
    Fail(env_id, resetting ? "reset" : "step", e.what());
  } catch (...) {
    Fail(env_id, resetting ? "reset" : "step", "an exception that is not a std::exception");
  }
  *out.Column<std::int32_t>(kColEnvId) = env_id;
  *out.Column<std::int32_t>(kColPlayersEnvId) = env_id;
  *out.Column<std::int32_t>(kColElapsedStep) = slot.elapsed_step;
  *out.Column<float>(kColReward) = out.reward;
  *out.Column<bool>(kColDone) = done;
  *out.Column<bool>(kColTrunc) = trunc;
  *out.Column<float>(kColDiscount) = out.discount;
  *out.Column<std::int32_t>(kColStepType) = step_type;

  int finished = target.done.fetch_add(1, std::memory_order_acq_rel) + 1;
  // The caller's wake-up, a store-buffering handshake: the caller stores
  // caller_waiting_ then loads the done counts (WaitForBatch), a worker adds to
  // a done count then loads caller_waiting_. Each side's store and load are
  // split by a seq_cst fence, so the fences are totally ordered and the later
  // fence's thread sees the earlier one's store: either this worker sees the
  // caller waiting and notifies it (under caller_mutex_, so not between its
  // last check and its sleep), or the caller sees this count and does not
  // sleep. Without the fences (acquire/release alone, or a seq_cst store
  // followed by an acquire load) both loads may miss on weakly ordered CPUs
  // (aarch64), and the caller would sleep until its timeout.
  std::atomic_thread_fence(std::memory_order_seq_cst);
  if (finished >= target.expected.load(std::memory_order_acquire) &&
      caller_waiting_.load(std::memory_order_relaxed)) {
    std::lock_guard<std::mutex> lock(caller_mutex_);
    caller_cv_.notify_one();
  }
}

void EnvPool::Fail(int env_id, const char* stage, const char* message) {
  std::lock_guard<std::mutex> lock(caller_mutex_);
  if (broken_.load(std::memory_order_relaxed)) return;  // the first failure is the one reported
  failure_ = "env " + std::to_string(env_id) + " of " + spec_.config.GetString("task_id") +
             " failed in " + stage + ": " + message +
             ". The pool is broken: close() it and make a new one";
  broken_.store(true, std::memory_order_release);
  caller_cv_.notify_one();  // a waiting recv() raises now
}

bool EnvPool::BatchReady() const {
  const BlockSlot& slot = ring_[static_cast<std::size_t>(recv_block_ % static_cast<std::int64_t>(ring_.size()))];
  int expected = slot.expected.load(std::memory_order_acquire);
  return expected > 0 && slot.done.load(std::memory_order_acquire) >= expected;
}

void EnvPool::CheckRecvPossible(int more_in_flight, const char* what) const {
  CheckUsable(what);
  int in_flight = in_flight_count_ + more_in_flight;
  if (in_flight == 0) {
    throw std::logic_error("recv() with nothing in flight: call send() or reset() first");
  }
  if (!is_sync() && in_flight < batch_size_) {
    throw std::logic_error("recv() would wait forever: " + std::to_string(in_flight) +
                           " envs in flight but batch_size is " + std::to_string(batch_size_) +
                           "; send actions to (or reset) the env ids of the previous batch "
                           "first");
  }
}

bool EnvPool::WaitForBatch(std::chrono::microseconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  auto ready = [this] { return BatchReady() || broken_.load(std::memory_order_acquire); };
  int id;
  while (!ready()) {
    // Envs that keep per-thread resources are stepped by the workers only.
    if (!spec_.steps_on_workers_only) {
      // The caller starts at the next queue each time: always starting at the
      // same one, it served only that queue's envs whenever the workers got no
      // CPU (another process busy), and the other envs never came back.
      caller_queue_ = (caller_queue_ + 1) % env_queues_.size();
      if (env_queues_.Pop(caller_queue_, &id)) {
        RunEnv(id, num_threads_);
        // Return now and then even while there is work, so Ctrl-C stays responsive.
        if (std::chrono::steady_clock::now() >= deadline) return ready();
        continue;
      }
    }
    if (ready() || SpinUntil(ready, kCallerSpinTime)) return true;
    caller_waiting_.store(true, std::memory_order_relaxed);
    std::atomic_thread_fence(std::memory_order_seq_cst);  // see RunEnv
    std::unique_lock<std::mutex> lock(caller_mutex_);
    bool finished = caller_cv_.wait_until(lock, deadline, ready);
    caller_waiting_.store(false, std::memory_order_relaxed);
    return finished;
  }
  return true;
}

OutputBlock* EnvPool::TakeBatch(int* rows) {
  if (broken_.load(std::memory_order_acquire)) throw EnvError(failure_);
  BlockSlot& slot = ring_[static_cast<std::size_t>(recv_block_ % static_cast<std::int64_t>(ring_.size()))];
  OutputBlock* block = slot.block;
  int n = slot.expected.load(std::memory_order_acquire);
  slot.block = blocks_->Acquire();
  slot.done.store(0, std::memory_order_relaxed);
  if (is_sync()) {
    slot.expected.store(0, std::memory_order_relaxed);
    sent_in_block_ = 0;
  }
  ++recv_block_;
  const auto* ids = reinterpret_cast<const std::int32_t*>(block->column(kColEnvId));
  for (int r = 0; r < n; ++r) in_flight_[static_cast<std::size_t>(ids[r])] = false;
  in_flight_count_ -= n;
  blocks_->HandOut(block);
  *rows = n;
  return block;
}

void EnvPool::Render(const std::int32_t* ids, int n, std::uint8_t* out) {
  if (spec_.render_shape.empty()) {
    throw std::invalid_argument("task " + spec_.config.GetString("task_id") +
                                " does not support render()");
  }
  if (n < 0 || n > num_envs_) {
    throw std::invalid_argument("render() of " + std::to_string(n) + " envs: at most num_envs (" +
                                std::to_string(num_envs_) + ")");
  }
  // The workers read the ids after the caller's buffer may have changed: a
  // copy, checked once copied.
  std::copy(ids, ids + n, render_ids_.begin());
  CheckIds(render_ids_.data(), n, "render");
  if (n == 0) return;
  render_out_ = out;
  render_error_ = nullptr;
  render_pending_.store(n, std::memory_order_relaxed);
  for (int i = 0; i < n; ++i) control_.Push(kFirstRenderToken - i);
  // Workers render, the caller waits: each thread that renders keeps an OpenGL
  // context, and the workers' contexts go away with the pool.
  WakeWorkers(n);
  std::unique_lock<std::mutex> lock(caller_mutex_);
  caller_cv_.wait(lock, [this] { return render_pending_.load(std::memory_order_acquire) == 0; });
  if (render_error_) std::rethrow_exception(std::exchange(render_error_, nullptr));
}

void EnvPool::RenderOne(int index) {
  std::size_t frame_bytes = static_cast<std::size_t>(spec_.render_shape[0]) *
                            static_cast<std::size_t>(spec_.render_shape[1]) * 3;
  int env_id = render_ids_[static_cast<std::size_t>(index)];
  std::string error;
  try {
    envs_[static_cast<std::size_t>(env_id)].env->Render(
        render_out_ + frame_bytes * static_cast<std::size_t>(index));
  } catch (const std::exception& e) {
    error = e.what();
  } catch (...) {
    error = "an exception that is not a std::exception";
  }
  if (!error.empty()) {
    std::lock_guard<std::mutex> lock(caller_mutex_);
    if (!render_error_) {
      render_error_ = std::make_exception_ptr(EnvError("env " + std::to_string(env_id) + " of " +
                                                       spec_.config.GetString("task_id") +
                                                       " failed in render: " + error));
    }
  }
  if (render_pending_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
    std::lock_guard<std::mutex> lock(caller_mutex_);
    caller_cv_.notify_one();
  }
}

void EnvPool::StopWorkers() {
  if (workers_.empty()) return;
  for (int t = 0; t < num_threads_; ++t) control_.Push(kStopToken);
  work_epoch_.fetch_add(1, std::memory_order_seq_cst);
  work_epoch_.notify_all();
  for (auto& w : workers_) w.join();
  workers_.clear();
}

void EnvPool::Close() {
  if (closed_) return;
  closed_ = true;
  StopWorkers();
  for (auto& slot : ring_) {
    if (slot.block != nullptr) blocks_->Recycle(slot.block);
    slot.block = nullptr;
  }
  blocks_->Trim();
  envs_.clear();
  envs_.shrink_to_fit();
}

}  // namespace envpool_core
