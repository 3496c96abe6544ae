// What Humanoid and HumanoidStandup share: both run gymnasium's humanoid
// model and report it the same way (the observation of humanoid*_v4/_v5 and
// v5's tendon infos).
#pragma once

#include <mujoco/mujoco.h>

#include <vector>

#include "core/env.h"
#include "core/task_registry.h"

namespace envpool_core::mujoco {

// The observation: qpos (minus x/y when `exclude_xy`), qvel, then the
// cinert, cvel, qfrc_actuator and cfrc_ext blocks (all in v4, each an option
// in v5). v5 drops the world body's rows and the free joint's 6
// actuator-force entries, as gymnasium's v5 does.
struct HumanoidObs {
  HumanoidObs(const Config& c, bool v5, bool exclude_xy);
  int Size(const mjModel& m) const;
  void Write(const mjModel& m, const mjData& d, double* obs) const;

  bool v5, exclude_xy, cinert, cvel, qfrc, cfrc;
};

// v5's include_*_in_observation options, which choose HumanoidObs' blocks.
std::vector<OptionDef> HumanoidObsOptions();

// v5's tendon_length and tendon_velocity infos (ntendon entries each), placed
// after the scalar infos; WriteTendonInfos writes them from info `first`.
void AddTendonInfos(EnvSpec* spec, const mjModel& m);
void WriteTendonInfos(OutputRow& row, int first, const mjModel& m, const mjData& d);

}  // namespace envpool_core::mujoco
