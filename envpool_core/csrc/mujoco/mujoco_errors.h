// MuJoCo's errors as C++ exceptions, and its warnings without a global swap.
//
// mju_error ends the process unless its handler transfers control, and
// MuJoCo's C code must not be unwound by a C++ exception. Each call below runs
// its MuJoCo function with a thread-local log handler installed (the
// mechanism MuJoCo's own Python bindings use, so it needs no global state and
// no lock): an error longjmps back to the call, which restores the thread's
// previous handler and throws std::runtime_error with MuJoCo's message.
// Warnings go on to the handler the thread had, as if none were installed.
#pragma once

#include <mujoco/mujoco.h>

#include <string>

namespace envpool_core::mujoco {

// mj_step `steps` times, then mj_rnePostConstraint if `post_constraint`.
void StepPhysics(const mjModel* m, mjData* d, int steps, bool post_constraint);
void ForwardPhysics(const mjModel* m, mjData* d);
// dm_control's Physics.step(steps): the state is assumed to have had mj_step1
// already, so it runs mj_step2, then mj_step steps-1 times, then mj_step1 so
// that the position- and velocity-dependent fields match qpos/qvel (with RK4,
// which has no split step: mj_step steps times, then mj_step1).
void StepPhysicsSplit(const mjModel* m, mjData* d, int steps);
void ResetPhysics(const mjModel* m, mjData* d);

// mj_loadXML(path, vfs), collecting the warnings MuJoCo's compiler emits into
// `warnings` (one per line) instead of its log. Returns null with `error`
// filled when the model cannot be loaded (mj_loadXML's error, or a MuJoCo
// error raised while compiling).
mjModel* LoadXmlCollectingWarnings(const char* path, char* error, int error_size,
                                   std::string* warnings, const mjVFS* vfs = nullptr);

}  // namespace envpool_core::mujoco
