// MuJoCo's errors as C++ exceptions, and its warnings without a global swap.
//
// mju_error ends the process unless its handler transfers control, and
// MuJoCo's C code must not be unwound by a C++ exception. Every MuJoCo call of
// envpool_core that can reach mju_error (loading, mj_makeData, mj_copyModel,
// stepping, the renderer's mjv_*/mjr_* calls) runs in Trapped(): a
// thread-local log handler is installed for the call (the mechanism MuJoCo's
// own compiler and Python bindings use, so it needs no global state and no
// lock); an error longjmps back to the call, which restores the thread's
// previous handler and throws std::runtime_error with MuJoCo's message.
// Warnings go on to the handler the thread had, as if none were installed.
//
// The longjmp leaves only the trapped body and MuJoCo's C functions, which
// have no destructors, with one exception stated at LoadXml below.
#pragma once

#include <mujoco/mujoco.h>

#include <cstddef>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "mujoco/mujoco_ptr.h"

namespace envpool_core::mujoco {

namespace detail {
// Runs fn(context) under the trap; false, with MuJoCo's message in `error`,
// when MuJoCo raised an error. `warnings`: where warnings go (null: on).
bool RunTrapped(void (*fn)(void*), void* context, char* error, std::size_t error_size,
                std::string* warnings);
}  // namespace detail

// Runs `body()` with MuJoCo's errors thrown as std::runtime_error("MuJoCo
// error in <what>: <message>"). `body` captures by reference and holds nothing
// with a destructor: on an error, control leaves it by longjmp.
template <typename Body>
void Trapped(const char* what, Body&& body) {
  using B = std::remove_reference_t<Body>;
  char error[1024];
  if (!detail::RunTrapped([](void* b) { (*static_cast<B*>(b))(); }, &body, error, sizeof(error),
                          nullptr)) {
    throw std::runtime_error(std::string("MuJoCo error in ") + what + ": " + error);
  }
}

// mj_step `steps` times, then mj_rnePostConstraint if `post_constraint`.
void StepPhysics(const mjModel* m, mjData* d, int steps, bool post_constraint);
void ForwardPhysics(const mjModel* m, mjData* d);
// dm_control's Physics.step(steps): the state is assumed to have had mj_step1
// already, so it runs mj_step2, then mj_step steps-1 times, then mj_step1 so
// that the position- and velocity-dependent fields match qpos/qvel (with RK4,
// which has no split step: mj_step steps times, then mj_step1).
void StepPhysicsSplit(const mjModel* m, mjData* d, int steps);
void ResetPhysics(const mjModel* m, mjData* d);

// mj_makeData / mj_copyModel(nullptr, m); throw std::runtime_error when MuJoCo
// fails (out of memory, say).
DataPtr MakeData(const mjModel* m);
ModelPtr CopyModel(const mjModel* m);

// Loads the model in `path` (from `vfs` if given) in MuJoCo's two steps,
// mj_parseXML and mj_compile, each of which returns its errors as values (the
// compiler traps the engine's errors itself), rather than with mj_loadXML,
// which also keeps the last model's spec in a global. Collects the compiler's
// warnings into `warnings` (one per line) instead of MuJoCo's log. Throws
// std::runtime_error with MuJoCo's message when the model cannot be loaded.
//
// Limitation: what the parser or the compiler's own set-up reports through
// mju_error instead (an allocation failing, say) is trapped like any other
// call, and the longjmp then skips the destructors of their C++ frames: what
// those hold leaks, and the process goes on.
ModelPtr LoadXml(const char* path, std::string* warnings, const mjVFS* vfs = nullptr);

}  // namespace envpool_core::mujoco
