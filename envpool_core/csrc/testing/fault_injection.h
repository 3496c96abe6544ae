// FaultInjection-v0: a test-only task that throws where it is told to.
//
// The engine's tests use it to drive every failure path (an env's Reset, Step,
// Seed or Render throwing, on any thread, in every mode). It is registered
// only when a test asks for it (`_core.register_fault_injection_task()`) and
// never listed to users. Its observation counts the env's steps in the episode,
// its reward is the action it was sent, its frames are filled with its index.
#pragma once

#include "core/task_registry.h"

namespace envpool_core::testing {

void RegisterFaultInjectionTask(TaskRegistry& registry);

}  // namespace envpool_core::testing
