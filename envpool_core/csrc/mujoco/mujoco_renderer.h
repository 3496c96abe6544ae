// MuJoCo's own OpenGL renderer (mjv_updateScene, mjr_render, mjr_readPixels)
// into an offscreen framebuffer, on the calling thread.
//
// Every thread that renders gets its own EGL context on first use (see
// egl_context.h) and, per shared model, its own mjvScene and mjrContext; all are freed
// when the thread ends (the pool's workers end when the pool closes). Nothing
// here runs unless something renders, so stepping never pays for it.
#pragma once

#include <mujoco/mujoco.h>

#include <cstdint>

namespace envpool_core::mujoco {

// Renders (m, d) seen from `camera` as a width x height RGB frame and returns
// its pixels bottom row first (OpenGL's order), valid until this thread renders
// again. `shared`: the model whose GPU resources (meshes, textures) draw it,
// made once per thread: `m` itself, or the shared model that `m` is an env's
// private copy of (the same assets). The scene is gymnasium's: default
// mjvOption, every category, at most 1000 geoms. Throws std::runtime_error
// when no OpenGL context can be made or MuJoCo's renderer raises an error.
// The model's heightfields are uploaded with its other resources, and again
// whenever `height_field_version` differs from the last frame's (a task that
// rewrites them gives a new version). `rangefinder_rays` false hides the rays
// of rangefinder sensors, as dm_control's scene option does (gymnasium's shows them).
const std::uint8_t* RenderFrame(const mjModel* shared, const mjModel* m, mjData* d,
                                mjvCamera* camera, int width, int height,
                                std::uint64_t height_field_version = 0,
                                bool rangefinder_rays = true);

// The threads' renderers (each with its OpenGL context) alive now: the tests
// check that a pool's go away with the pool's threads.
int LiveRenderContexts();
// The models' scenes and GPU resources alive now, over all threads: at most one
// per thread per shared model.
int LiveModelRenderers();

// Copies a RenderFrame() result top row first (height x width x 3).
void CopyFrameTopDown(const std::uint8_t* frame, int width, int height, std::uint8_t* out);

}  // namespace envpool_core::mujoco
