#include "core/columns.h"

#include <cstdint>

#include "core/env.h"

namespace envpool_core {

const std::vector<ArraySpec>& CommonColumnSpecs() {
  static const std::vector<ArraySpec> specs = [] {
    std::vector<ArraySpec> s(kNumCommonColumns);
    s[kColEnvId] = MakeArraySpec<std::int32_t>("env_id", {});
    s[kColPlayersEnvId] = MakeArraySpec<std::int32_t>("players.env_id", {});
    s[kColElapsedStep] = MakeArraySpec<std::int32_t>("elapsed_step", {});
    s[kColReward] = MakeArraySpec<float>("reward", {});
    s[kColDone] = MakeArraySpec<bool>("done", {});
    s[kColTrunc] = MakeArraySpec<bool>("trunc", {});
    s[kColDiscount] = MakeArraySpec<float>("discount", {}, {0.0}, {1.0});
    s[kColStepType] = MakeArraySpec<std::int32_t>("step_type", {});
    return s;
  }();
  return specs;
}

std::vector<ArraySpec> OutputColumns(const EnvSpec& spec) {
  std::vector<ArraySpec> cols = CommonColumnSpecs();
  cols.insert(cols.end(), spec.obs.begin(), spec.obs.end());
  cols.insert(cols.end(), spec.info.begin(), spec.info.end());
  return cols;
}

}  // namespace envpool_core
