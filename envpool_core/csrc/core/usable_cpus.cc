#include "core/usable_cpus.h"

#include <algorithm>
#include <thread>

#if defined(__linux__)
#include <sched.h>
#endif

namespace envpool_core {

std::vector<int> UsableCpus() {
  std::vector<int> cpus;
#if defined(__linux__)
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) == 0) {
    for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
      if (CPU_ISSET(cpu, &set)) cpus.push_back(cpu);
    }
  }
#endif
  if (cpus.empty()) {
    int online = static_cast<int>(std::max(1U, std::thread::hardware_concurrency()));
    for (int cpu = 0; cpu < online; ++cpu) cpus.push_back(cpu);
  }
  return cpus;
}

}  // namespace envpool_core
