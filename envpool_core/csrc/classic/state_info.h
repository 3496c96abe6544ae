// The opt-in `state_in_info` option of classic-control tasks: the env's full
// float64 internal state as info["state"], so tests (and users) can copy it
// into another implementation exactly.
#pragma once

#include "core/env.h"

namespace envpool_core::classic {

inline OptionDef StateInInfoOption() {
  return OptionDef::Bool("state_in_info", false,
                         "add the float64 internal state as info['state'] (for alignment tests)");
}

// Adds info "state" (float64, `size` values) to `spec` when the option is on.
inline void AddStateInfo(const Config& config, int size, EnvSpec* spec) {
  if (config.GetBool("state_in_info")) spec->info.push_back(MakeArraySpec<double>("state", {size}));
}

// Writes the state into info 0 (the only info of classic-control tasks).
inline void WriteStateInfo(OutputRow& row, const double* state, int size) {
  double* out = row.Info<double>(0);
  for (int i = 0; i < size; ++i) out[i] = state[i];
}

}  // namespace envpool_core::classic
