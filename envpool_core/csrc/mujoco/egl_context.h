// A headless OpenGL context on EGL for the calling thread, with EGL loaded at
// run time.
//
// libEGL is opened with dlopen on first use, never linked: a machine without
// EGL or OpenGL builds the extension and steps MuJoCo tasks; only rendering
// then fails, with an error that says what to install. The display is chosen
// once per process: an EGL device (EGL_EXT_platform_device; MUJOCO_EGL_DEVICE_ID
// picks one where there are several, as MuJoCo's Python bindings do), else
// Mesa's surfaceless platform, else the default display. Without a GPU, Mesa's
// llvmpipe renders in software on any of them.
//
// libEGL is opened RTLD_GLOBAL so that MuJoCo's OpenGL loader (mjr_makeContext)
// finds eglGetProcAddress in the global symbol table and gets every GL function
// through it (libglvnd's dispatch): no libGL.so.1 or libOpenGL.so.0 is needed.
//
// Mesa's loader opens its driver RTLD_GLOBAL, which puts Mesa's libLLVM in the
// process's global symbol table. A library that carries its own LLVM and
// exports its symbols (triton, which torch.compile and torch._dynamo import)
// binds its LLVM calls to Mesa's copy when it is loaded afterwards, and
// crashes in its initialisers. Loaded before libEGL, it binds to its own copy:
// SetLibrariesLoadedBeforeEgl names such libraries (the Python layer finds
// them), and the first render loads them first, unless an LLVM is in the global
// table already (another renderer loaded Mesa first), when loading them would crash.
#pragma once

#include <string>
#include <vector>

namespace envpool_core::mujoco {

// Libraries to dlopen (RTLD_LOCAL) just before libEGL is first loaded; one that
// fails to load is skipped. Takes effect only before the first render.
void SetLibrariesLoadedBeforeEgl(std::vector<std::string> paths);

// Throws the std::runtime_error a first frame would throw when EGL cannot be
// loaded or has no usable display: lets a pool that must render to step
// (from_pixels) fail when it is made rather than in a worker thread.
void CheckEglAvailable();

class EglContext {
 public:
  // Creates an OpenGL (compatibility profile) context and makes it current on
  // the calling thread, without a surface: MuJoCo draws into its own offscreen
  // framebuffer. Throws std::runtime_error naming what is missing.
  EglContext();
  // Releases the context; must run on the thread that created it.
  ~EglContext();
  EglContext(const EglContext&) = delete;
  EglContext& operator=(const EglContext&) = delete;

  // Makes the context current for a scope, then gives the thread back the
  // context that was current before, if any: other OpenGL code on the same
  // thread (gymnasium's renderer, say) keeps working.
  class Scope {
   public:
    explicit Scope(const EglContext& gl);
    ~Scope();
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

   private:
    void* display_;
    void* draw_;
    void* read_;
    void* context_;  // null: nothing to give back
  };

 private:
  void* context_;
};

}  // namespace envpool_core::mujoco
