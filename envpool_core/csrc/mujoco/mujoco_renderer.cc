#include "mujoco/mujoco_renderer.h"

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstring>
#include <map>
#include <memory>
#include <stdexcept>
#include <vector>

#include "mujoco/egl_context.h"
#include "mujoco/mujoco_errors.h"

namespace envpool_core::mujoco {

namespace {

constexpr int kMaxGeom = 1000;  // gymnasium's MujocoRenderer default

std::atomic<int> live_renderers{0};
std::atomic<int> live_model_renderers{0};

// A model's scene and its GPU resources (meshes, textures, offscreen buffer)
// in the thread's OpenGL context.
struct ModelRenderer {
  explicit ModelRenderer(const mjModel* m) {
    mjv_defaultOption(&option);
    mjv_defaultPerturb(&perturb);
    mjv_defaultScene(&scene);
    mjr_defaultContext(&context);
    try {
      Trapped("mjv_makeScene", [&] { mjv_makeScene(m, &scene, kMaxGeom); });
      Trapped("mjr_makeContext", [&] { mjr_makeContext(m, &context, mjFONTSCALE_150); });
    } catch (...) {
      // What was made before the error (both free only what is there).
      mjr_freeContext(&context);
      mjv_freeScene(&scene);
      throw;
    }
    live_model_renderers.fetch_add(1);
  }
  ~ModelRenderer() {
    live_model_renderers.fetch_sub(1);
    mjr_freeContext(&context);
    mjv_freeScene(&scene);
  }
  ModelRenderer(const ModelRenderer&) = delete;
  ModelRenderer& operator=(const ModelRenderer&) = delete;

  mjvOption option;
  mjvPerturb perturb;
  mjvScene scene;
  mjrContext context;
  std::uint64_t height_field_version = 0;  // of the heightfields uploaded
};

class ThreadRenderer {
 public:
  ThreadRenderer() { live_renderers.fetch_add(1); }  // after gl_: once its context exists
  ~ThreadRenderer() {
    live_renderers.fetch_sub(1);
    try {
      EglContext::Scope current(gl_);  // the models' GPU resources live in this context
      models_.clear();
    } catch (const std::exception&) {
      // The context cannot be made current (never seen): freeing the models'
      // resources would touch another context, so they are left to the driver,
      // which frees them with the context below.
      for (auto& entry : models_) static_cast<void>(entry.second.release());
    }
  }
  ThreadRenderer(const ThreadRenderer&) = delete;
  ThreadRenderer& operator=(const ThreadRenderer&) = delete;

  const std::uint8_t* Render(const mjModel* shared, const mjModel* m, mjData* d,
                             mjvCamera* camera, int width, int height,
                             std::uint64_t height_field_version, bool rangefinder_rays) {
    EglContext::Scope current(gl_);
    // Keyed by the shared model, cached for the life of the process
    // (model_cache.h), so its address names it for good; an env's private copy
    // of it (same meshes and textures, other sizes, colours or places) draws
    // with the same resources, so that a worker holds one set per shared model,
    // not one per env.
    std::unique_ptr<ModelRenderer>& r = models_[shared];
    try {
      if (r == nullptr) r = std::make_unique<ModelRenderer>(shared);
      RenderWith(r.get(), m, d, camera, width, height, height_field_version, rangefinder_rays);
    } catch (...) {
      models_.erase(shared);  // made afresh by the next frame, in case the error left it half set
      throw;
    }
    return pixels_.data();
  }

 private:
  void RenderWith(ModelRenderer* r, const mjModel* m, mjData* d, mjvCamera* camera, int width,
                  int height, std::uint64_t height_field_version, bool rangefinder_rays) {
    mjrContext& con = r->context;
    if (r->height_field_version != height_field_version) {
      Trapped("mjr_uploadHField", [&] {
        for (int h = 0; h < m->nhfield; ++h) mjr_uploadHField(m, &con, h);
      });
      r->height_field_version = height_field_version;
    }
    // The offscreen buffer starts at the model's offwidth x offheight and is
    // only ever grown, as gymnasium grows it for larger frames.
    if (width > con.offWidth || height > con.offHeight) {
      Trapped("mjr_resizeOffscreen", [&] {
        mjr_resizeOffscreen(std::max(width, con.offWidth), std::max(height, con.offHeight), &con);
      });
    }
    // Bound on every call: another model's context may have bound its own.
    Trapped("mjr_setBuffer", [&] { mjr_setBuffer(mjFB_OFFSCREEN, &con); });
    r->option.flags[mjVIS_RANGEFINDER] = rangefinder_rays ? 1 : 0;
    // An error inside mjv_updateScene leaves the frame it marked on d's stack
    // (mj_markStack): unmarked here, so that the env steps on with its whole
    // arena after a failed frame.
    const std::size_t pstack = d->pstack;
    const std::size_t pbase = d->pbase;
    try {
      Trapped("mjv_updateScene", [&] {
        mjv_updateScene(m, d, &r->option, &r->perturb, camera, mjCAT_ALL, &r->scene);
      });
    } catch (...) {
      d->pstack = pstack;
      d->pbase = pbase;
      throw;
    }
    mjrRect viewport = {0, 0, width, height};
    Trapped("mjr_render", [&] { mjr_render(viewport, &r->scene, &con); });
    pixels_.resize(static_cast<std::size_t>(width) * static_cast<std::size_t>(height) * 3);
    std::uint8_t* pixels = pixels_.data();
    Trapped("mjr_readPixels", [&] { mjr_readPixels(pixels, nullptr, viewport, &con); });
  }

  EglContext gl_;  // first member: freed after the models' resources
  std::map<const mjModel*, std::unique_ptr<ModelRenderer>> models_;
  std::vector<std::uint8_t> pixels_;
};

}  // namespace

const std::uint8_t* RenderFrame(const mjModel* shared, const mjModel* m, mjData* d,
                                mjvCamera* camera, int width, int height,
                                std::uint64_t height_field_version, bool rangefinder_rays) {
  // Made on this thread's first frame; if that throws (no EGL), the next call
  // tries again and throws the same error.
  thread_local ThreadRenderer renderer;
  return renderer.Render(shared, m, d, camera, width, height, height_field_version,
                         rangefinder_rays);
}

int LiveRenderContexts() { return live_renderers.load(); }

int LiveModelRenderers() { return live_model_renderers.load(); }

void CopyFrameTopDown(const std::uint8_t* frame, int width, int height, std::uint8_t* out) {
  std::size_t row = static_cast<std::size_t>(width) * 3;
  for (int y = 0; y < height; ++y) {
    std::memcpy(out + row * static_cast<std::size_t>(y),
                frame + row * static_cast<std::size_t>(height - 1 - y), row);
  }
}

}  // namespace envpool_core::mujoco
