#include "mujoco/mujoco_errors.h"

#include <csetjmp>
#include <cstring>
#include <stdexcept>

// Exported by libmujoco and used by its Python bindings: the calling thread's
// log handler, which takes precedence over the global one.
extern "C" {
MJAPI mjfLogHandler _mjPRIVATE_setTlsLogHandler(mjfLogHandler handler);
MJAPI mjfLogHandler _mjPRIVATE_getGlobalLogHandler(void);
}

namespace envpool_core::mujoco {

namespace {

// What the calling thread's trapped call is doing. Plain data: control leaves
// the MuJoCo function by longjmp, past no destructor.
struct Trap {
  std::jmp_buf jump;
  mjfLogHandler previous;  // the thread's handler before the call (null: none)
  std::string* warnings;   // null: warnings go to `previous` or the global handler
  char error[1024];
};
thread_local Trap* current_trap = nullptr;

void TrapHandler(const mjLogMessage* message) {
  Trap* trap = current_trap;
  if (message->level == mjLOG_ERROR) {
    std::strncpy(trap->error, message->subject, sizeof(trap->error) - 1);
    trap->error[sizeof(trap->error) - 1] = '\0';
    std::longjmp(trap->jump, 1);
  }
  if (trap->warnings != nullptr && message->level == mjLOG_WARNING) {
    *trap->warnings += std::string(trap->warnings->empty() ? "" : "\n") + message->subject;
    return;
  }
  mjfLogHandler next = trap->previous != nullptr ? trap->previous : _mjPRIVATE_getGlobalLogHandler();
  next(message);
}

// Runs fn(context) under `trap`; false when MuJoCo raised an error. Nothing
// with a destructor lives in the frames control leaves by longjmp.
bool RunTrapped(Trap* trap, void (*fn)(void*), void* context) {
  Trap* outer = current_trap;
  current_trap = trap;
  trap->error[0] = '\0';
  trap->previous = _mjPRIVATE_setTlsLogHandler(TrapHandler);
  if (setjmp(trap->jump) != 0) {
    _mjPRIVATE_setTlsLogHandler(trap->previous);
    current_trap = outer;
    return false;
  }
  fn(context);
  _mjPRIVATE_setTlsLogHandler(trap->previous);
  current_trap = outer;
  return true;
}

// Runs `body` (a lambda that captures by reference, so it owns nothing to
// destroy) with MuJoCo's errors thrown as std::runtime_error.
template <typename Body>
void Call(const char* what, Body body) {
  Trap trap;
  trap.warnings = nullptr;
  if (!RunTrapped(&trap, [](void* b) { (*static_cast<Body*>(b))(); }, &body)) {
    throw std::runtime_error(std::string("MuJoCo error in ") + what + ": " + trap.error);
  }
}

}  // namespace

void StepPhysics(const mjModel* m, mjData* d, int steps, bool post_constraint) {
  Call("mj_step", [m, d, steps] {
    for (int i = 0; i < steps; ++i) mj_step(m, d);
  });
  if (post_constraint) Call("mj_rnePostConstraint", [m, d] { mj_rnePostConstraint(m, d); });
}

void StepPhysicsSplit(const mjModel* m, mjData* d, int steps) {
  Call("mj_step", [m, d, steps] {
    int full_steps = steps;
    if (m->opt.integrator != mjINT_RK4) {
      mj_step2(m, d);
      full_steps = steps - 1;
    }
    for (int i = 0; i < full_steps; ++i) mj_step(m, d);
    mj_step1(m, d);
  });
}

void ForwardPhysics(const mjModel* m, mjData* d) {
  Call("mj_forward", [m, d] { mj_forward(m, d); });
}

void ResetPhysics(const mjModel* m, mjData* d) {
  Call("mj_resetData", [m, d] { mj_resetData(m, d); });
}

mjModel* LoadXmlCollectingWarnings(const char* path, char* error, int error_size,
                                   std::string* warnings, const mjVFS* vfs) {
  mjModel* model = nullptr;
  Trap trap;
  trap.warnings = warnings;
  auto load = [&] { model = mj_loadXML(path, vfs, error, error_size); };
  if (!RunTrapped(&trap, [](void* l) { (*static_cast<decltype(load)*>(l))(); }, &load)) {
    std::strncpy(error, trap.error, static_cast<std::size_t>(error_size) - 1);
    error[error_size - 1] = '\0';
    return nullptr;
  }
  return model;
}

}  // namespace envpool_core::mujoco
