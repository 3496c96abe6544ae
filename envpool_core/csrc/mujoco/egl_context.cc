#include "mujoco/egl_context.h"

#include <dlfcn.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace envpool_core::mujoco {

namespace {

// The few EGL types and constants used here (EGL/egl.h, EGL/eglext.h), declared
// locally so that building needs no EGL headers.
using EGLBoolean = unsigned int;
using EGLenum = unsigned int;
using EGLint = std::int32_t;
using EGLDisplay = void*;
using EGLConfig = void*;
using EGLContext = void*;
using EGLSurface = void*;
using EGLDeviceEXT = void*;

constexpr EGLint kEglNone = 0x3038;
constexpr EGLint kEglExtensions = 0x3055;
constexpr EGLint kEglRedSize = 0x3024;
constexpr EGLint kEglGreenSize = 0x3023;
constexpr EGLint kEglBlueSize = 0x3022;
constexpr EGLint kEglAlphaSize = 0x3021;
constexpr EGLint kEglDepthSize = 0x3025;
constexpr EGLint kEglStencilSize = 0x3026;
constexpr EGLint kEglColorBufferType = 0x303F;
constexpr EGLint kEglRgbBuffer = 0x308E;
constexpr EGLint kEglSurfaceType = 0x3033;
constexpr EGLint kEglPbufferBit = 0x0001;
constexpr EGLint kEglRenderableType = 0x3040;
constexpr EGLint kEglOpenGlBit = 0x0008;
constexpr EGLenum kEglOpenGlApi = 0x30A2;
constexpr EGLenum kEglPlatformDevice = 0x313F;
constexpr EGLenum kEglPlatformSurfaceless = 0x31DD;
constexpr EGLint kEglDraw = 0x3059;
constexpr EGLint kEglRead = 0x305A;

constexpr const char* kInstallHint =
    "MuJoCo rendering needs EGL and OpenGL at run time. On Debian/Ubuntu: "
    "apt-get install libegl1 libgl1-mesa-dri (Mesa; it renders in software where there is "
    "no GPU), or install your GPU driver's EGL library";

// libEGL's entry points and the display every context of the process uses.
struct Egl {
  EGLint (*GetError)() = nullptr;
  void* (*GetProcAddress)(const char*) = nullptr;
  EGLDisplay (*GetDisplay)(void*) = nullptr;
  EGLBoolean (*Initialize)(EGLDisplay, EGLint*, EGLint*) = nullptr;
  const char* (*QueryString)(EGLDisplay, EGLint) = nullptr;
  EGLBoolean (*ChooseConfig)(EGLDisplay, const EGLint*, EGLConfig*, EGLint, EGLint*) = nullptr;
  EGLBoolean (*BindAPI)(EGLenum) = nullptr;
  EGLContext (*CreateContext)(EGLDisplay, EGLConfig, EGLContext, const EGLint*) = nullptr;
  EGLBoolean (*MakeCurrent)(EGLDisplay, EGLSurface, EGLSurface, EGLContext) = nullptr;
  EGLBoolean (*DestroyContext)(EGLDisplay, EGLContext) = nullptr;
  EGLBoolean (*ReleaseThread)() = nullptr;
  EGLContext (*GetCurrentContext)() = nullptr;
  EGLDisplay (*GetCurrentDisplay)() = nullptr;
  EGLSurface (*GetCurrentSurface)(EGLint) = nullptr;

  EGLDisplay display = nullptr;
  EGLConfig config = nullptr;
  std::string error;  // non-empty: rendering is unavailable, and why
};

template <typename F>
bool Resolve(void* lib, const char* name, F* fn, std::string* missing) {
  *fn = reinterpret_cast<F>(dlsym(lib, name));
  if (*fn == nullptr) *missing += std::string(missing->empty() ? "" : ", ") + name;
  return *fn != nullptr;
}

bool HasExtension(const char* list, const char* name) {
  if (list == nullptr) return false;
  std::size_t len = std::strlen(name);
  for (const char* p = std::strstr(list, name); p != nullptr; p = std::strstr(p + len, name)) {
    bool starts = p == list || p[-1] == ' ';
    bool ends = p[len] == '\0' || p[len] == ' ';
    if (starts && ends) return true;
  }
  return false;
}

std::string Hex(EGLint code) {
  char text[16];
  std::snprintf(text, sizeof(text), "0x%04X", static_cast<unsigned>(code));
  return text;
}

// An initialized display: an EGL device (MUJOCO_EGL_DEVICE_ID, else the first
// that initializes), else Mesa's surfaceless platform, else the default display.
EGLDisplay OpenDisplay(const Egl& egl, std::string* error) {
  const char* client = egl.QueryString(nullptr, kEglExtensions);  // null on EGL < 1.5 w/o ext
  egl.GetError();  // a failed client-extension query leaves an error to clear
  using GetPlatformDisplayFn = EGLDisplay (*)(EGLenum, void*, const EGLint*);
  using QueryDevicesFn = EGLBoolean (*)(EGLint, EGLDeviceEXT*, EGLint*);
  auto get_platform_display =
      reinterpret_cast<GetPlatformDisplayFn>(egl.GetProcAddress("eglGetPlatformDisplayEXT"));
  auto query_devices =
      reinterpret_cast<QueryDevicesFn>(egl.GetProcAddress("eglQueryDevicesEXT"));
  auto initialize = [&](EGLDisplay d) {
    return d != nullptr && egl.Initialize(d, nullptr, nullptr) != 0;
  };

  const char* wanted = std::getenv("MUJOCO_EGL_DEVICE_ID");
  bool has_devices = (HasExtension(client, "EGL_EXT_device_enumeration") ||
                      HasExtension(client, "EGL_EXT_device_base")) &&
                     HasExtension(client, "EGL_EXT_platform_device") &&
                     get_platform_display != nullptr && query_devices != nullptr;
  if (has_devices) {
    EGLint count = 0;
    query_devices(0, nullptr, &count);
    std::vector<EGLDeviceEXT> devices(static_cast<std::size_t>(count > 0 ? count : 0));
    if (count > 0) query_devices(count, devices.data(), &count);
    if (wanted != nullptr) {
      char* end = nullptr;
      long index = std::strtol(wanted, &end, 10);
      if (*wanted == '\0' || *end != '\0' || index < 0 || index >= count) {
        *error = "MUJOCO_EGL_DEVICE_ID must be an integer between 0 and " +
                 std::to_string(count - 1) + " (this machine has " + std::to_string(count) +
                 " EGL devices), got '" + wanted + "'";
        return nullptr;
      }
      EGLDisplay d = get_platform_display(kEglPlatformDevice,
                                          devices[static_cast<std::size_t>(index)], nullptr);
      if (initialize(d)) return d;
      *error = "cannot initialize EGL device " + std::to_string(index) +
               " (MUJOCO_EGL_DEVICE_ID), EGL error " + Hex(egl.GetError());
      return nullptr;
    }
    for (EGLDeviceEXT device : devices) {
      EGLDisplay d = get_platform_display(kEglPlatformDevice, device, nullptr);
      if (initialize(d)) return d;
    }
  } else if (wanted != nullptr) {
    *error = "MUJOCO_EGL_DEVICE_ID is set, but this EGL cannot choose a device "
             "(no EGL_EXT_platform_device)";
    return nullptr;
  }
  if (get_platform_display != nullptr && HasExtension(client, "EGL_MESA_platform_surfaceless")) {
    EGLDisplay d = get_platform_display(kEglPlatformSurfaceless, nullptr, nullptr);
    if (initialize(d)) return d;
  }
  EGLDisplay d = egl.GetDisplay(nullptr);
  if (initialize(d)) return d;
  *error = std::string("no EGL display could be initialized (EGL error ") +
           Hex(egl.GetError()) + "). " + kInstallHint;
  return nullptr;
}

std::mutex& LoadedBeforeEglMutex() {
  static std::mutex mutex;
  return mutex;
}

std::vector<std::string>& LoadedBeforeEgl() {
  static std::vector<std::string> paths;
  return paths;
}

Egl Load() {
  Egl egl;
  {
    std::lock_guard<std::mutex> lock(LoadedBeforeEglMutex());
    // Never closed: the library's own import later finds it loaded. Skipped where an LLVM is
    // global already (another renderer in the process, dm_control's or gymnasium's, loaded
    // Mesa first): loading such a library then is the very crash this avoids.
    if (dlsym(RTLD_DEFAULT, "LLVMContextCreate") == nullptr) {
      for (const std::string& path : LoadedBeforeEgl()) dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    }
  }
  void* lib = dlopen("libEGL.so.1", RTLD_NOW | RTLD_GLOBAL);
  if (lib == nullptr) {
    const char* why = dlerror();
    egl.error = std::string("cannot load libEGL.so.1 (") + (why != nullptr ? why : "not found") +
                "). " + kInstallHint;
    return egl;
  }
  std::string missing;
  Resolve(lib, "eglGetError", &egl.GetError, &missing);
  Resolve(lib, "eglGetProcAddress", &egl.GetProcAddress, &missing);
  Resolve(lib, "eglGetDisplay", &egl.GetDisplay, &missing);
  Resolve(lib, "eglInitialize", &egl.Initialize, &missing);
  Resolve(lib, "eglQueryString", &egl.QueryString, &missing);
  Resolve(lib, "eglChooseConfig", &egl.ChooseConfig, &missing);
  Resolve(lib, "eglBindAPI", &egl.BindAPI, &missing);
  Resolve(lib, "eglCreateContext", &egl.CreateContext, &missing);
  Resolve(lib, "eglMakeCurrent", &egl.MakeCurrent, &missing);
  Resolve(lib, "eglDestroyContext", &egl.DestroyContext, &missing);
  Resolve(lib, "eglReleaseThread", &egl.ReleaseThread, &missing);
  Resolve(lib, "eglGetCurrentContext", &egl.GetCurrentContext, &missing);
  Resolve(lib, "eglGetCurrentDisplay", &egl.GetCurrentDisplay, &missing);
  Resolve(lib, "eglGetCurrentSurface", &egl.GetCurrentSurface, &missing);
  if (!missing.empty()) {
    egl.error = "libEGL.so.1 lacks " + missing + ". " + kInstallHint;
    return egl;
  }
  std::string error;
  egl.display = OpenDisplay(egl, &error);
  if (egl.display == nullptr) {
    egl.error = error;
    return egl;
  }
  const EGLint attributes[] = {
      kEglRedSize,         8, kEglGreenSize,      8,
      kEglBlueSize,        8, kEglAlphaSize,      8,
      kEglDepthSize,       24, kEglStencilSize,   8,
      kEglColorBufferType, kEglRgbBuffer, kEglSurfaceType, kEglPbufferBit,
      kEglRenderableType,  kEglOpenGlBit, kEglNone};
  EGLint num_configs = 0;
  if (egl.ChooseConfig(egl.display, attributes, &egl.config, 1, &num_configs) == 0 ||
      num_configs < 1) {
    egl.error = "EGL has no OpenGL configuration with 8-bit RGBA, 24-bit depth and 8-bit "
                "stencil (EGL error " + Hex(egl.GetError()) + "). " + kInstallHint;
  }
  return egl;
}

// Loaded once per process; thread-safe (a function-local static).
const Egl& Loaded() {
  static const Egl egl = Load();
  return egl;
}

}  // namespace

void SetLibrariesLoadedBeforeEgl(std::vector<std::string> paths) {
  std::lock_guard<std::mutex> lock(LoadedBeforeEglMutex());
  LoadedBeforeEgl() = std::move(paths);
}

void CheckEglAvailable() {
  const Egl& egl = Loaded();
  if (!egl.error.empty()) throw std::runtime_error("cannot render: " + egl.error);
}

EglContext::EglContext() : context_(nullptr) {
  CheckEglAvailable();
  const Egl& egl = Loaded();
  if (egl.BindAPI(kEglOpenGlApi) == 0) {
    throw std::runtime_error("cannot render: this EGL has no desktop OpenGL (eglBindAPI failed, "
                             "EGL error " + Hex(egl.GetError()) + "). " + kInstallHint);
  }
  context_ = egl.CreateContext(egl.display, egl.config, nullptr, nullptr);
  if (context_ == nullptr) {
    throw std::runtime_error("cannot render: eglCreateContext failed (EGL error " +
                             Hex(egl.GetError()) + ")");
  }
  // Made current once here to report a driver that cannot do without a
  // surface; Scope gives back whatever the thread had current.
  try {
    Scope check(*this);
  } catch (...) {
    egl.DestroyContext(egl.display, context_);
    throw;
  }
}

EglContext::~EglContext() {
  const Egl& egl = Loaded();
  bool current = egl.GetCurrentContext() == context_;
  if (current) egl.MakeCurrent(egl.display, nullptr, nullptr, nullptr);
  egl.DestroyContext(egl.display, context_);
  if (current) egl.ReleaseThread();
}

EglContext::Scope::Scope(const EglContext& gl)
    : display_(nullptr), draw_(nullptr), read_(nullptr), context_(nullptr) {
  const Egl& egl = Loaded();
  EGLContext current = egl.GetCurrentContext();
  if (current == gl.context_) return;  // the usual case: a worker thread renders again
  if (current != nullptr) {
    display_ = egl.GetCurrentDisplay();
    draw_ = egl.GetCurrentSurface(kEglDraw);
    read_ = egl.GetCurrentSurface(kEglRead);
    context_ = current;
  }
  if (egl.MakeCurrent(egl.display, nullptr, nullptr, gl.context_) == 0) {
    throw std::runtime_error("cannot render: eglMakeCurrent without a surface failed (EGL error " +
                             Hex(egl.GetError()) + "; the driver needs EGL_KHR_surfaceless_context)");
  }
}

EglContext::Scope::~Scope() {
  if (context_ == nullptr) return;
  const Egl& egl = Loaded();
  egl.MakeCurrent(display_, draw_, read_, context_);
}

}  // namespace envpool_core::mujoco
