#include "mujoco/humanoid_model.h"

namespace envpool_core::mujoco {

namespace {

// Calls put(field, begin, end) for each block of `layout`, in order: the
// observation is mjData's `field`[begin:end] for each of them.
template <typename Put>
void ForEachBlock(const HumanoidObs& layout, const mjModel& m, Put put) {
  int body0 = layout.v5 ? 1 : 0;
  put(&mjData::qpos, layout.exclude_xy ? 2 : 0, m.nq);
  put(&mjData::qvel, 0, m.nv);
  if (layout.cinert) put(&mjData::cinert, 10 * body0, 10 * m.nbody);
  if (layout.cvel) put(&mjData::cvel, 6 * body0, 6 * m.nbody);
  if (layout.qfrc) put(&mjData::qfrc_actuator, layout.v5 ? 6 : 0, m.nv);
  if (layout.cfrc) put(&mjData::cfrc_ext, 6 * body0, 6 * m.nbody);
}

}  // namespace

HumanoidObs::HumanoidObs(const Config& c, bool v5, bool exclude_xy)
    : v5(v5),
      exclude_xy(exclude_xy),
      cinert(!v5 || c.GetBool("include_cinert_in_observation")),
      cvel(!v5 || c.GetBool("include_cvel_in_observation")),
      qfrc(!v5 || c.GetBool("include_qfrc_actuator_in_observation")),
      cfrc(!v5 || c.GetBool("include_cfrc_ext_in_observation")) {}

int HumanoidObs::Size(const mjModel& m) const {
  int n = 0;
  ForEachBlock(*this, m, [&](mjtNum* mjData::*, int begin, int end) { n += end - begin; });
  return n;
}

void HumanoidObs::Write(const mjModel& m, const mjData& d, double* obs) const {
  ForEachBlock(*this, m, [&](mjtNum* mjData::*field, int begin, int end) {
    const mjtNum* src = d.*field;
    for (int i = begin; i < end; ++i) *obs++ = src[i];
  });
}

std::vector<OptionDef> HumanoidObsOptions() {
  return {
      OptionDef::Bool("include_cinert_in_observation", true,
                      "add the bodies' com-based inertias (cinert)"),
      OptionDef::Bool("include_cvel_in_observation", true,
                      "add the bodies' com-based velocities (cvel)"),
      OptionDef::Bool("include_qfrc_actuator_in_observation", true,
                      "add the actuator forces (qfrc_actuator)"),
      OptionDef::Bool("include_cfrc_ext_in_observation", true,
                      "add the external contact forces (cfrc_ext)"),
  };
}

void AddTendonInfos(EnvSpec* spec, const mjModel& m) {
  spec->info.push_back(MakeArraySpec<double>("tendon_length", {static_cast<int>(m.ntendon)}));
  spec->info.push_back(MakeArraySpec<double>("tendon_velocity", {static_cast<int>(m.ntendon)}));
}

void WriteTendonInfos(OutputRow& row, int first, const mjModel& m, const mjData& d) {
  mju_copy(row.Info<double>(first), d.ten_length, m.ntendon);
  mju_copy(row.Info<double>(first + 1), d.ten_velocity, m.ntendon);
}

}  // namespace envpool_core::mujoco
