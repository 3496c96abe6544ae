#include "mujoco/mujoco_errors.h"

#include <csetjmp>
#include <cstring>
#include <stdexcept>

// Exported by libmujoco and used by its compiler and Python bindings, but not
// declared in its headers: the calling thread's log handler, which takes
// precedence over the global one. The build checks that libmujoco has them
// (mujoco/CMakeLists.txt).
extern "C" {
MJAPI mjfLogHandler _mjPRIVATE_setTlsLogHandler(mjfLogHandler handler);
MJAPI mjfLogHandler _mjPRIVATE_getGlobalLogHandler(void);
}

namespace envpool_core::mujoco {

namespace {

// What the calling thread's trapped call is doing. Plain data: control leaves
// the MuJoCo function by longjmp.
struct Trap {
  std::jmp_buf jump;
  mjfLogHandler previous;  // the thread's handler before the call (null: none)
  std::string* warnings;   // null: warnings go to `previous` or the global handler
  char* error;
  std::size_t error_size;
};
thread_local Trap* current_trap = nullptr;

void TrapHandler(const mjLogMessage* message) {
  Trap* trap = current_trap;
  if (message->level == mjLOG_ERROR) {
    std::strncpy(trap->error, message->subject, trap->error_size - 1);
    trap->error[trap->error_size - 1] = '\0';
    std::longjmp(trap->jump, 1);
  }
  if (trap->warnings != nullptr && message->level == mjLOG_WARNING) {
    *trap->warnings += std::string(trap->warnings->empty() ? "" : "\n") + message->subject;
    return;
  }
  mjfLogHandler next = trap->previous != nullptr ? trap->previous : _mjPRIVATE_getGlobalLogHandler();
  next(message);
}

}  // namespace

namespace detail {

bool RunTrapped(void (*fn)(void*), void* context, char* error, std::size_t error_size,
                std::string* warnings) {
  Trap trap;
  trap.warnings = warnings;
  trap.error = error;
  trap.error_size = error_size;
  error[0] = '\0';
  Trap* outer = current_trap;
  current_trap = &trap;
  trap.previous = _mjPRIVATE_setTlsLogHandler(TrapHandler);
  if (setjmp(trap.jump) != 0) {
    _mjPRIVATE_setTlsLogHandler(trap.previous);
    current_trap = outer;
    return false;
  }
  fn(context);
  _mjPRIVATE_setTlsLogHandler(trap.previous);
  current_trap = outer;
  return true;
}

}  // namespace detail

void StepPhysics(const mjModel* m, mjData* d, int steps, bool post_constraint) {
  Trapped("mj_step", [m, d, steps] {
    for (int i = 0; i < steps; ++i) mj_step(m, d);
  });
  if (post_constraint) Trapped("mj_rnePostConstraint", [m, d] { mj_rnePostConstraint(m, d); });
}

void StepPhysicsSplit(const mjModel* m, mjData* d, int steps) {
  Trapped("mj_step", [m, d, steps] {
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
  Trapped("mj_forward", [m, d] { mj_forward(m, d); });
}

void ResetPhysics(const mjModel* m, mjData* d) {
  Trapped("mj_resetData", [m, d] { mj_resetData(m, d); });
}

DataPtr MakeData(const mjModel* m) {
  mjData* d = nullptr;
  Trapped("mj_makeData", [&d, m] { d = mj_makeData(m); });
  if (d == nullptr) throw std::runtime_error("MuJoCo error in mj_makeData: out of memory");
  return DataPtr(d);
}

ModelPtr CopyModel(const mjModel* m) {
  mjModel* copy = nullptr;
  Trapped("mj_copyModel", [&copy, m] { copy = mj_copyModel(nullptr, m); });
  if (copy == nullptr) throw std::runtime_error("MuJoCo error in mj_copyModel: out of memory");
  return ModelPtr(copy);
}

ModelPtr LoadXml(const char* path, std::string* warnings, const mjVFS* vfs) {
  char error[1024] = "";
  mjSpec* spec = nullptr;
  auto parse = [&] { spec = mj_parseXML(path, vfs, error, sizeof(error)); };
  char trapped[1024];
  if (!detail::RunTrapped([](void* p) { (*static_cast<decltype(parse)*>(p))(); }, &parse, trapped,
                          sizeof(trapped), warnings)) {
    throw std::runtime_error(std::string("MuJoCo error in mj_parseXML: ") + trapped);
  }
  if (spec == nullptr) throw std::runtime_error(error);
  mjModel* model = nullptr;
  auto compile = [&] { model = mj_compile(spec, vfs); };
  bool ok = detail::RunTrapped([](void* c) { (*static_cast<decltype(compile)*>(c))(); }, &compile,
                               trapped, sizeof(trapped), warnings);
  std::string compile_error;
  if (!ok) {
    compile_error = std::string("MuJoCo error in mj_compile: ") + trapped;
  } else if (model == nullptr) {
    const char* message = mjs_getError(spec);
    compile_error = message != nullptr && message[0] != '\0' ? message : "mj_compile failed";
  }
  mj_deleteSpec(spec);
  if (!compile_error.empty()) throw std::runtime_error(compile_error);
  return ModelPtr(model);
}

}  // namespace envpool_core::mujoco
