// Python bindings: the only file that knows about Python.
//
// Output arrays are created with the NumPy C API as views of an output block
// (PyArray_NewFromDescr + a capsule base that holds the block), which costs far
// less per array than a generic buffer export; that matters for envs that step
// in nanoseconds.
#include <nanobind/nanobind.h>
#include <nanobind/stl/map.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#define PY_ARRAY_UNIQUE_SYMBOL envpool_core_ARRAY_API
#include <numpy/arrayobject.h>

#include <atomic>
#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "classic/register.h"
#include "core/env_pool.h"
#include "core/task_registry.h"
#include "testing/fault_injection.h"
#ifdef ENVPOOL_CORE_WITH_ATARI
#include "atari/register.h"
#endif
#ifdef ENVPOOL_CORE_WITH_MUJOCO
#include "dm_control/register.h"
#include "mujoco/egl_context.h"
#include "mujoco/mujoco_renderer.h"
#include "mujoco/register.h"
#endif
#ifdef ENVPOOL_CORE_WITH_XLA
#include "xla/xla_target.h"
#endif

namespace nb = nanobind;
using namespace envpool_core;

namespace {

int NumpyType(DType dtype) {
  switch (dtype) {
    case DType::kBool:
      return NPY_BOOL;
    case DType::kUInt8:
      return NPY_UINT8;
    case DType::kInt32:
      return NPY_INT32;
    case DType::kInt64:
      return NPY_INT64;
    case DType::kFloat32:
      return NPY_FLOAT32;
    case DType::kFloat64:
      return NPY_FLOAT64;
  }
  return NPY_VOID;
}

std::int64_t ToInt64(const std::string& key, nb::handle value) {
  std::int64_t out = 0;
  if (!nb::try_cast<std::int64_t>(nb::int_(value), out)) {
    throw std::invalid_argument("'" + key + "' = " + nb::cast<std::string>(nb::str(value)) +
                                " is out of range: ints must fit in a signed 64-bit integer");
  }
  return out;
}

ConfigValue ToConfigValue(const std::string& key, nb::handle value) {
  PyObject* o = value.ptr();
  if (PyBool_Check(o) || PyArray_IsScalar(o, Bool)) return static_cast<bool>(PyObject_IsTrue(o));
  if (PyLong_Check(o) || PyArray_IsScalar(o, Integer)) return ToInt64(key, value);
  if (PyFloat_Check(o) || PyArray_IsScalar(o, Floating)) return nb::cast<double>(value);
  if (PyUnicode_Check(o)) return nb::cast<std::string>(value);
  if (PySequence_Check(o) || PyArray_Check(o)) {
    std::vector<std::int64_t> list;
    for (nb::handle item : nb::iter(value)) {
      PyObject* p = item.ptr();
      if (PyBool_Check(p) || !(PyLong_Check(p) || PyArray_IsScalar(p, Integer))) {
        throw std::invalid_argument("invalid type for '" + key + "': expected a sequence of ints");
      }
      list.push_back(ToInt64(key, item));
    }
    return list;
  }
  throw std::invalid_argument("invalid type for '" + key + "': " +
                              nb::cast<std::string>(nb::str(value.type())));
}

nb::object FromConfigValue(const ConfigValue& v) {
  return std::visit([](const auto& x) -> nb::object { return nb::cast(x); }, v);
}

nb::dict ArraySpecDict(const ArraySpec& s) {
  nb::dict d;
  d["name"] = s.name;
  d["dtype"] = DTypeName(s.dtype);
  d["shape"] = nb::tuple(nb::cast(s.shape));
  d["low"] = s.low;
  d["high"] = s.high;
  return d;
}

nb::dict OptionDict(const OptionDef& o) {
  static const char* kTypeNames[] = {"bool", "int", "float", "str", "seed"};
  nb::dict d;
  d["name"] = o.name;
  d["type"] = kTypeNames[static_cast<int>(o.type)];
  d["default"] = FromConfigValue(o.default_value);
  d["doc"] = o.doc;
  d["min"] = o.min;
  d["max"] = o.max;
  d["choices"] = o.choices;
  return d;
}

// The resolved spec of a task, as the Python layer sees it.
struct PySpec {
  std::string task_id;
  EnvSpec spec;
};

PySpec MakeSpec(const std::string& task_id, nb::dict kwargs) {
  std::map<std::string, ConfigValue> values;
  const TaskRegistry& reg = TaskRegistry::Global();
  for (auto [k, v] : kwargs) {
    std::string key = nb::cast<std::string>(k);
    reg.OptionName(task_id, key);  // an unknown keyword is a TypeError before its value is read
    values[key] = ToConfigValue(key, v);
  }
  return PySpec{task_id, reg.MakeSpec(task_id, values)};
}

nb::dict ConfigDict(const PySpec& s) {
  nb::dict d;
  for (const auto& [k, v] : s.spec.config.values()) d[k.c_str()] = FromConfigValue(v);
  return d;
}

nb::list SpecList(const std::vector<ArraySpec>& specs) {
  nb::list l;
  for (const auto& s : specs) l.append(ArraySpecDict(s));
  return l;
}

// Checks an array argument: a C-contiguous numpy array of `dtype` and `shape`.
PyArrayObject* CheckArray(nb::handle obj, const char* what, int npy_type,
                          const std::vector<npy_intp>& shape) {
  if (!PyArray_Check(obj.ptr())) {
    throw nb::type_error((std::string(what) + " must be a numpy array").c_str());
  }
  auto* arr = reinterpret_cast<PyArrayObject*>(obj.ptr());
  if (PyArray_TYPE(arr) != npy_type || !PyArray_IS_C_CONTIGUOUS(arr) || !PyArray_ISALIGNED(arr)) {
    PyArray_Descr* want = PyArray_DescrFromType(npy_type);
    std::string msg = std::string(what) + " must be a C-contiguous array of dtype " +
                      nb::cast<std::string>(nb::str(nb::handle(reinterpret_cast<PyObject*>(want))));
    Py_DECREF(want);
    throw nb::type_error(msg.c_str());
  }
  bool ok = PyArray_NDIM(arr) == static_cast<int>(shape.size());
  for (std::size_t i = 0; ok && i < shape.size(); ++i) ok = PyArray_DIM(arr, static_cast<int>(i)) == shape[i];
  if (!ok) {
    std::string want = "(", got = "(";
    for (std::size_t i = 0; i < shape.size(); ++i) want += std::to_string(shape[i]) + (i + 1 < shape.size() ? ", " : shape.size() == 1 ? ",": "");
    for (int i = 0; i < PyArray_NDIM(arr); ++i) got += std::to_string(PyArray_DIM(arr, i)) + (i + 1 < PyArray_NDIM(arr) ? ", " : PyArray_NDIM(arr) == 1 ? "," : "");
    throw std::invalid_argument(std::string(what) + " has shape " + got + ") but expected " + want + ")");
  }
  return arr;
}

const std::int32_t* EnvIds(nb::handle ids, int* n) {
  if (!PyArray_Check(ids.ptr()) || PyArray_NDIM(reinterpret_cast<PyArrayObject*>(ids.ptr())) != 1) {
    throw nb::type_error("env_id must be a 1-d numpy array of int32");
  }
  auto* arr = CheckArray(ids, "env_id", NPY_INT32,
                         {PyArray_DIM(reinterpret_cast<PyArrayObject*>(ids.ptr()), 0)});
  *n = static_cast<int>(PyArray_DIM(arr, 0));
  return static_cast<const std::int32_t*>(PyArray_DATA(arr));
}

// Interpreter shutdown.
//
// Python ends (before 3.14: pthread_exit, whose unwinding through nanobind's
// noexcept frames aborts the process) or hangs (3.14) any thread but the
// finalising one that takes the GIL back once finalisation has begun; and a
// worker still rendering or stepping when exit() unloads the libraries under
// it (Mesa's LLVM, say) crashes the process. Whether finalisation has begun
// cannot be checked and acted on atomically, so the bindings keep their own
// flag, raised by an atexit hook (BeginShutdown, below PyEnvPool), which
// Python runs on the thread that will finalise, after non-daemon threads were
// joined and before finalisation begins. The hook closes the window with two
// handshakes:
//
// - a thread that released the GIL announces its retake (`retaking`), then
//   reads `shutting_down`: set, it parks for good, after unlocking the pool
//   lock it holds (only daemon threads get there, which the exit does not wait
//   for); clear, it takes the GIL back;
// - a thread that makes a pool announces it (`constructing`), then reads
//   `shutting_down`: set, it raises instead;
// - the hook sets `shutting_down`, waits, without the GIL, until no thread is
//   retaking or constructing, then closes every pool (waiting for the calls in
//   progress, whose threads then park), so that no worker runs at exit.
//
// Both sides are sequentially consistent (a store, then a load of the other's
// variable), so at least one sees the other. From the hook on, no thread
// releases the GIL in the bindings: the finalising thread (closing pools from
// __del__, later atexit hooks or the garbage collector) works with it held,
// which the workers do not need.
std::atomic<bool> shutting_down{false};
std::atomic<int> retaking{0};
std::atomic<int> constructing{0};

bool ShuttingDown() { return shutting_down.load(std::memory_order_seq_cst); }

// Releases the GIL for a scope (or, with Take()/Release(), parts of it),
// unless the interpreter is shutting down (see above). `held`: the pool lock
// the caller holds, unlocked if this thread parks.
class GilRelease {
 public:
  explicit GilRelease(std::mutex* held = nullptr) : held_(held) { Release(); }
  ~GilRelease() { Take(); }
  GilRelease(const GilRelease&) = delete;
  GilRelease& operator=(const GilRelease&) = delete;

  void Take() {
    if (state_ == nullptr) return;
    retaking.fetch_add(1, std::memory_order_seq_cst);
    if (ShuttingDown()) {
      retaking.fetch_sub(1, std::memory_order_seq_cst);
      if (held_ != nullptr) held_->unlock();
      for (;;) std::this_thread::sleep_for(std::chrono::hours(1));
    }
    PyEval_RestoreThread(state_);
    retaking.fetch_sub(1, std::memory_order_seq_cst);
    state_ = nullptr;
  }
  void Release() {
    if (!ShuttingDown()) state_ = PyEval_SaveThread();
  }
  // The pool lock the caller now holds (taken while the GIL was released).
  void Holding(std::mutex* held) { held_ = held; }

 private:
  std::mutex* held_;
  PyThreadState* state_ = nullptr;
};

class PyEnvPool;

// The pools alive, which BeginShutdown closes. Never destroyed: exit() runs
// after the last Python code.
std::mutex live_pools_mutex;
auto* live_pools = new std::set<PyEnvPool*>();

class PyEnvPool {
 public:
  explicit PyEnvPool(const PySpec& s)
      : pool_(TaskRegistry::Global().Get(s.task_id), s.spec) {
    const ArraySpec& a = pool_.spec().action;
    action_shape_.push_back(0);
    for (int d : a.shape) action_shape_.push_back(d);
    for (const auto& col : pool_.layout().columns) {
      std::vector<npy_intp> dims = {0};
      for (int d : col.shape) dims.push_back(d);
      column_dims_.push_back(std::move(dims));
      column_types_.push_back(NumpyType(col.dtype));
    }
    std::lock_guard<std::mutex> live(live_pools_mutex);
    live_pools->insert(this);
  }

  ~PyEnvPool() {
    {
      std::lock_guard<std::mutex> live(live_pools_mutex);
      live_pools->erase(this);
    }
#ifdef ENVPOOL_CORE_WITH_XLA
    if (xla_) {
      auto lock = Lock();
      xla_->Detach();
    }
#endif
  }

#ifdef ENVPOOL_CORE_WITH_XLA
  // The id XLA computations name this pool by (registered on first use).
  std::int64_t XlaTargetId() {
    auto lock = Lock();  // no engine call in flight while the pool changes mutex
    if (!xla_) xla_ = XlaTarget::Create(&pool_);
    return xla_->id();
  }
#endif

  void Send(nb::handle action, nb::handle env_ids) {
    auto lock = Lock();
    SendLocked(action, env_ids);
  }

  void Reset(nb::handle env_ids) {
    auto lock = Lock();
    int n;
    const std::int32_t* ids = EnvIds(env_ids, &n);
    pool_.Reset(ids, n);
  }

  nb::tuple Recv() {
    auto lock = Lock();
    return RecvLocked(lock);
  }

  // reset() of the Python API: resets and receives under one lock, as Step.
  // Checked before the reset is queued: a reset that no recv() could return
  // would leave its envs in flight, blocking later resets.
  // `seeds`: None, or a uint64 array of one seed per id (Env::Seed first).
  nb::tuple ResetRecv(nb::handle env_ids, nb::handle seeds) {
    auto lock = Lock();
    int n;
    const std::int32_t* ids = EnvIds(env_ids, &n);
    const std::uint64_t* seed_data = nullptr;
    if (!seeds.is_none()) {
      PyArrayObject* arr = CheckArray(seeds, "seed", NPY_UINT64, {n});
      seed_data = static_cast<const std::uint64_t*>(PyArray_DATA(arr));
    }
    pool_.CheckRecvPossible(n, "reset");
    pool_.Reset(ids, n, seed_data);
    return RecvLocked(lock);
  }

  // One lock for both halves: another thread's send cannot slip in between,
  // so each caller gets the rows of its own envs.
  nb::tuple Step(nb::handle action, nb::handle env_ids) {
    auto lock = Lock();
    SendLocked(action, env_ids);
    return RecvLocked(lock);
  }

  nb::object Render(nb::handle env_ids) {
    int n;
    const std::int32_t* ids = EnvIds(env_ids, &n);
    const auto& shape = pool_.spec().render_shape;  // immutable: read without the lock
    if (shape.empty()) {
      throw std::invalid_argument("task " + pool_.spec().config.GetString("task_id") +
                                  " does not support render()");
    }
    // Copied while the GIL keeps other Python threads from writing the caller's array.
    std::vector<std::int32_t> id_copy(ids, ids + n);
    // Not zeroed (the workers write every pixel of every frame): NumPy releases the GIL while
    // it zeroes a large allocation, and no call of the bindings may let the GIL go but through
    // GilRelease (a daemon thread taking it back at exit would be ended by Python inside this
    // call; one holding the pool lock would block the exit).
    npy_intp dims[4] = {n, shape[0], shape[1], 3};
    nb::object out = nb::steal(PyArray_EMPTY(4, dims, NPY_UINT8, 0));
    if (!out.is_valid()) throw nb::python_error();
    auto* pixels =
        static_cast<std::uint8_t*>(PyArray_DATA(reinterpret_cast<PyArrayObject*>(out.ptr())));
    auto lock = Lock();
    {
      GilRelease gil(lock.mutex());  // workers render; a frame can take a while
      pool_.Render(id_copy.data(), n, pixels);
    }
    return out;
  }

  void Close() {
    auto lock = Lock();
    {
      GilRelease gil(lock.mutex());  // joining can take a step's time; workers need no GIL
      pool_.StopWorkers();
    }
    pool_.Close();
  }

  std::vector<std::string> Columns() const {
    std::vector<std::string> names;
    for (const auto& c : pool_.layout().columns) names.push_back(c.name);
    return names;
  }

#ifdef ENVPOOL_CORE_WITH_XLA
  std::shared_ptr<XlaTarget> xla_;
#endif
  EnvPool pool_;

 private:
  void SendLocked(nb::handle action, nb::handle env_ids) {
    int n;
    const std::int32_t* ids = EnvIds(env_ids, &n);
    action_shape_[0] = n;
    DType dtype = pool_.spec().action.dtype;
    PyArrayObject* arr = CheckArray(action, "action", NumpyType(dtype), action_shape_);
    pool_.Send(PyArray_DATA(arr), dtype, ids, n);  // copies: the caller may reuse `action`
  }

  nb::tuple RecvLocked(std::unique_lock<std::mutex>& lock) {
    pool_.CheckRecvPossible();
    {
      GilRelease gil(lock.mutex());
      // Wake up now and then to let Ctrl-C interrupt a long wait.
      while (!pool_.WaitForBatch(std::chrono::milliseconds(50))) {
        gil.Take();
        if (PyErr_CheckSignals() != 0) throw nb::python_error();
        gil.Release();
      }
    }
    int rows;
    OutputBlock* block = pool_.TakeBatch(&rows);
    PyObject* owner = PyCapsule_New(block, nullptr, [](PyObject* cap) {
      static_cast<OutputBlock*>(PyCapsule_GetPointer(cap, nullptr))->Release();
    });
    if (owner == nullptr) {
      block->Release();
      throw nb::python_error();
    }
    std::size_t ncol = column_dims_.size();
    PyObject* tuple = PyTuple_New(static_cast<Py_ssize_t>(ncol));
    for (std::size_t c = 0; c < ncol; ++c) {
      std::vector<npy_intp>& dims = column_dims_[c];
      dims[0] = rows;
      PyObject* arr = PyArray_New(&PyArray_Type, static_cast<int>(dims.size()), dims.data(),
                                  column_types_[c], nullptr, block->column(static_cast<int>(c)), 0,
                                  NPY_ARRAY_CARRAY, nullptr);
      if (arr == nullptr) {
        Py_DECREF(tuple);
        Py_DECREF(owner);
        throw nb::python_error();
      }
      Py_INCREF(owner);
      PyArray_SetBaseObject(reinterpret_cast<PyArrayObject*>(arr), owner);
      PyTuple_SET_ITEM(tuple, static_cast<Py_ssize_t>(c), arr);
    }
    Py_DECREF(owner);
    return nb::steal<nb::tuple>(tuple);
  }

  // Serialises the engine calls of Python threads sharing the pool (recv and
  // close wait without the GIL, so the GIL alone does not) and, once xla() was
  // used, of XLA computations stepping it, through the XLA target's mutex.
  // Blocks without the GIL, so that the thread holding the lock can take the
  // GIL (to raise Ctrl-C, say) and finish. While the interpreter shuts down it
  // blocks with the GIL (see GilRelease): so nothing done under this lock may
  // let the GIL go but a GilRelease, whose Take() parks then, unlocking.
  std::unique_lock<std::mutex> Lock() {
    for (;;) {
      std::mutex& mutex = CurrentMutex();
      std::unique_lock<std::mutex> lock(mutex, std::try_to_lock);
      if (!lock.owns_lock()) {
        GilRelease gil;
        lock.lock();
        gil.Holding(&mutex);
      }
      // xla() may have switched the pool to its target's mutex while we waited.
      if (&mutex == &CurrentMutex()) return lock;
    }
  }

  std::mutex& CurrentMutex() {
#ifdef ENVPOOL_CORE_WITH_XLA
    if (xla_) return xla_->mutex();
#endif
    return mutex_;
  }

  std::mutex mutex_;
  std::vector<npy_intp> action_shape_;
  std::vector<std::vector<npy_intp>> column_dims_;
  std::vector<int> column_types_;
};

// The atexit hook of the bindings (see "Interpreter shutdown" above).
void BeginShutdown() {
  shutting_down.store(true, std::memory_order_seq_cst);
  Py_BEGIN_ALLOW_THREADS
  while (retaking.load(std::memory_order_seq_cst) != 0 ||
         constructing.load(std::memory_order_seq_cst) != 0) {
    std::this_thread::sleep_for(std::chrono::microseconds(100));
  }
  Py_END_ALLOW_THREADS
  std::vector<PyEnvPool*> pools;
  {
    std::lock_guard<std::mutex> live(live_pools_mutex);
    pools.assign(live_pools->begin(), live_pools->end());
  }
  // No pool is made or freed meanwhile: making one raises now, and freeing
  // needs the GIL, which this thread holds.
  for (PyEnvPool* pool : pools) pool->Close();
}

// EnvPool.__init__: makes the envs without the GIL, unless the interpreter is
// shutting down (see above).
void MakePool(PyEnvPool* self, const PySpec& s) {
  constructing.fetch_add(1, std::memory_order_seq_cst);
  if (ShuttingDown()) {
    constructing.fetch_sub(1, std::memory_order_seq_cst);
    throw std::runtime_error("cannot make a pool of " + s.task_id +
                             ": the interpreter is shutting down");
  }
  GilRelease gil;  // building the envs takes a while and needs no GIL
  try {
    new (self) PyEnvPool(s);
  } catch (...) {
    constructing.fetch_sub(1, std::memory_order_seq_cst);
    throw;
  }
  constructing.fetch_sub(1, std::memory_order_seq_cst);
}

}  // namespace

NB_MODULE(_core, m) {
  if (_import_array() < 0) throw nb::python_error();
  // A pool still held at interpreter exit (a thread stopped by Ctrl-C, a module-level
  // pool) is freed by the OS, not by Python; nanobind would report it as a reference
  // leak of the bindings. Real leaks are caught by the tests' create/close cycles.
  nb::set_leak_warnings(false);
  // Registered at import: atexit runs it after the hooks registered later (last in,
  // first out), which may still use pools.
  nb::module_::import_("atexit").attr("register")(
      nb::cpp_function(&BeginShutdown, "Closes every pool and parks threads that would re-enter Python (bindings.cc)."));

  nb::register_exception_translator([](const std::exception_ptr& p, void*) {
    try {
      std::rethrow_exception(p);
    } catch (const UnknownOptionError& e) {
      PyErr_SetString(PyExc_TypeError, e.what());
    } catch (const std::out_of_range& e) {
      PyErr_SetString(PyExc_ValueError, e.what());
    } catch (const std::logic_error& e) {
      // invalid_argument derives from logic_error: keep it a ValueError.
      if (dynamic_cast<const std::invalid_argument*>(&e) != nullptr) {
        PyErr_SetString(PyExc_ValueError, e.what());
      } else {
        PyErr_SetString(PyExc_RuntimeError, e.what());
      }
    }
  });

  // An env's failure (its message names the task and env); a pool whose env
  // failed in reset or step raises it from every call until it is closed.
  nb::exception<EnvError>(m, "EnvError", PyExc_RuntimeError);

  RegisterClassicTasks(TaskRegistry::Global());
  m.def("load_classic_control_assets", &LoadClassicControlAssets,
        "Reads Pendulum's arrow image from gymnasium's classic-control assets directory.");
  m.def("register_fault_injection_task",
        [] { testing::RegisterFaultInjectionTask(TaskRegistry::Global()); },
        "Registers FaultInjection-v0, the test-only task that throws on request.");

  m.def("list_tasks", [] { return TaskRegistry::Global().Ids(); });
  m.def("task_options", [](const std::string& task_id) {
    nb::list l;
    for (const auto& o : TaskRegistry::Global().Options(task_id)) l.append(OptionDict(o));
    return l;
  });
#ifdef ENVPOOL_CORE_WITH_ATARI
  m.def("register_atari_tasks",
        [](const std::string& rom_dir) { RegisterAtariTasks(TaskRegistry::Global(), rom_dir); },
        "Registers one <Game>-v5 task per ROM file in rom_dir that ALE supports.");
#endif
#ifdef ENVPOOL_CORE_WITH_MUJOCO
  m.def("register_mujoco_tasks",
        [](const std::string& asset_dir) { RegisterMujocoTasks(TaskRegistry::Global(), asset_dir); },
        "Registers the MuJoCo tasks, reading model XML files from asset_dir.");
  m.def("register_dm_control_tasks",
        [](const std::string& suite_dir) {
          RegisterDmControlTasks(TaskRegistry::Global(), suite_dir);
        },
        "Registers the DeepMind Control Suite's tasks, reading models from suite_dir.");
  m.def("set_libraries_loaded_before_egl", &mujoco::SetLibrariesLoadedBeforeEgl,
        "Libraries the first render loads before libEGL (egl_context.h says why).");
  m.def("live_render_contexts", &mujoco::LiveRenderContexts,
        "The OpenGL contexts MuJoCo's renderer holds now, one per thread that rendered.");
  m.def("live_model_renderers", &mujoco::LiveModelRenderers,
        "The models' scenes and GPU resources MuJoCo's renderer holds now, over all threads.");
#endif

  nb::list common;
  for (const auto& c : CommonColumnSpecs()) common.append(c.name);
  m.attr("COMMON_COLUMNS") = nb::tuple(common);

#ifdef ENVPOOL_CORE_WITH_XLA
  m.def("xla_send_handler", [] { return nb::capsule(XlaSendHandler()); },
        "The typed-FFI handler of xla()'s send, for jax.ffi.register_ffi_target.");
  m.def("xla_recv_handler", [] { return nb::capsule(XlaRecvHandler()); },
        "The typed-FFI handler of xla()'s recv, for jax.ffi.register_ffi_target.");
#endif

  nb::class_<PySpec>(m, "Spec")
      .def_static("make", &MakeSpec, nb::arg("task_id"), nb::arg("kwargs"))
      .def_ro("task_id", &PySpec::task_id)
      .def_prop_ro("config", &ConfigDict)
      .def_prop_ro("obs", [](const PySpec& s) { return SpecList(s.spec.obs); })
      .def_prop_ro("info", [](const PySpec& s) { return SpecList(s.spec.info); })
      .def_prop_ro("action", [](const PySpec& s) { return ArraySpecDict(s.spec.action); })
      .def_prop_ro("render_shape", [](const PySpec& s) { return s.spec.render_shape; })
      .def_prop_ro("render_fps", [](const PySpec& s) { return s.spec.render_fps; })
      .def_prop_ro("columns", [](const PySpec& s) { return SpecList(OutputColumns(s.spec)); });

  nb::class_<PyEnvPool>(m, "EnvPool")
      .def("__init__", &MakePool, nb::arg("spec"))
      .def("send", &PyEnvPool::Send, nb::arg("action"), nb::arg("env_id"))
      .def("reset", &PyEnvPool::Reset, nb::arg("env_id"))
      .def("recv", &PyEnvPool::Recv)
      .def("step", &PyEnvPool::Step, nb::arg("action"), nb::arg("env_id"))
      .def("reset_recv", &PyEnvPool::ResetRecv, nb::arg("env_id"), nb::arg("seed").none())
      .def("render", &PyEnvPool::Render, nb::arg("env_id"))
      .def("close", &PyEnvPool::Close)
      .def_prop_ro("columns", &PyEnvPool::Columns)
#ifdef ENVPOOL_CORE_WITH_XLA
      .def("xla_target_id", &PyEnvPool::XlaTargetId)
#endif
      .def_prop_ro("closed", [](const PyEnvPool& p) { return p.pool_.closed(); })
      .def_prop_ro("num_envs", [](const PyEnvPool& p) { return p.pool_.num_envs(); })
      .def_prop_ro("batch_size", [](const PyEnvPool& p) { return p.pool_.batch_size(); });
}
