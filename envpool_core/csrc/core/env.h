// The interface between the engine and one environment.
//
// An env family describes its arrays in an EnvSpec and implements Env. The
// engine owns everything that is common to all envs: episode step counting,
// time-limit truncation, auto-reset, done/discount/step_type and the batch
// layout. An Env only writes its observation and info arrays straight into the
// output row it is handed, and reports reward and termination. An Env may
// throw from any of its methods: the engine turns that into a Python exception
// naming the task and env, never an abort.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/array_spec.h"
#include "core/columns.h"
#include "core/config.h"

namespace envpool_core {

// What a task produces and consumes, derived from its resolved config.
struct EnvSpec {
  Config config;
  std::vector<ArraySpec> obs;   // usually one array named "obs"
  std::vector<ArraySpec> info;  // family-specific info, e.g. "lives"
  ArraySpec action;
  // {height, width} of the RGB frames Env::Render writes; empty: no render.
  std::vector<int> render_shape;
  // Env steps per second of simulated time (gymnasium's metadata["render_fps"]); 0: no render.
  double render_fps = 0.0;
  // True when stepping holds per-thread resources (an OpenGL context for
  // from_pixels): only the pool's workers then step, never the caller's thread
  // or XLA's, so those resources live and die with the pool's threads.
  bool steps_on_workers_only = false;
};

// dm_env step types.
enum StepType : std::int32_t { kStepFirst = 0, kStepMid = 1, kStepLast = 2 };

// One row of an output block, handed to Env::Reset/Step. The env writes its
// arrays through Obs()/Info() (pointers into the block, no copies) and sets
// reward, terminated and (optionally) discount.
class OutputRow {
 public:
  OutputRow(std::uint8_t* const* columns, const std::size_t* row_bytes, int row, int num_obs)
      : columns_(columns), row_bytes_(row_bytes), row_(row), num_obs_(num_obs) {}

  template <typename T>
  T* Obs(int i = 0) const {
    return Column<T>(kNumCommonColumns + i);
  }
  template <typename T>
  T* Info(int i) const {
    return Column<T>(kNumCommonColumns + num_obs_ + i);
  }
  template <typename T>
  T* Column(int c) const {
    return reinterpret_cast<T*>(columns_[c] + row_bytes_[c] * static_cast<std::size_t>(row_));
  }

  float reward = 0.0F;
  bool terminated = false;
  float discount = 1.0F;  // used when not terminated (e.g. 0 on an Atari life loss)

 private:
  std::uint8_t* const* columns_;
  const std::size_t* row_bytes_;
  int row_;
  int num_obs_;
};

class Env {
 public:
  virtual ~Env() = default;

  // Starts an episode and writes the first observation and info. Returns true
  // when this is a new episode (the engine restarts elapsed_step), false when
  // the env continues one (Atari's episodic life after losing a life).
  virtual bool Reset(OutputRow& row) = 0;

  // Applies `action` (one row of the action array, laid out as EnvSpec::action)
  // and writes the next observation and info.
  virtual void Step(const void* action, OutputRow& row) = 0;

  // Writes the current frame as height x width x 3 uint8 (EnvSpec::render_shape).
  virtual void Render(std::uint8_t* /*rgb*/) {}

  // Reseeds the env's random streams as if it had been made with `seed`: the
  // next Reset() starts the episode a new env of that seed starts with.
  virtual void Seed(std::uint64_t seed) = 0;
};

}  // namespace envpool_core
