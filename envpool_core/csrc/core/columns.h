// The columns every output block carries, defined once.
//
// Each block holds the common columns below (in this order), then the env's
// obs columns, then its info columns. The Python layer reads the names and the
// order from here (`_core.COMMON_COLUMNS`, `Spec.columns`); nothing else spells
// them out.
#pragma once

#include <vector>

#include "core/array_spec.h"

namespace envpool_core {

struct EnvSpec;

enum CommonColumn : int {
  kColEnvId = 0,
  kColPlayersEnvId,
  kColElapsedStep,
  kColReward,
  kColDone,
  kColTrunc,
  kColDiscount,
  kColStepType,
  kNumCommonColumns
};

// Name, dtype and per-env shape of each common column, indexed by CommonColumn.
const std::vector<ArraySpec>& CommonColumnSpecs();

// Every column of an output block of `spec`: common, then obs, then info.
std::vector<ArraySpec> OutputColumns(const EnvSpec& spec);

}  // namespace envpool_core
