// The CPUs the process may run on.
//
// A container, `taskset` or a batch scheduler gives a process fewer CPUs than
// the machine has online: the default thread count and the workers' pinning
// follow the process's affinity mask (sched_getaffinity), not the machine.
#pragma once

#include <vector>

namespace envpool_core {

// The CPU numbers in the calling thread's affinity mask, ascending (on other
// systems than Linux, or if the mask cannot be read: 0 .. online CPUs - 1).
// Never empty.
std::vector<int> UsableCpus();

}  // namespace envpool_core
