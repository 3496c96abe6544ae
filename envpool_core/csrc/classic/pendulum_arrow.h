// Pendulum's torque arrow. After a step gymnasium draws assets/clockwise.png
// at the pivot, scaled by pygame's smoothscale to a square of scale * |u| / 2
// pixels a side, mirrored for a positive torque, blended by its alpha. The
// image is read once per process, when the Python layer finds gymnasium's
// assets (without them Pendulum draws no arrow), and scaled then to every
// side a torque can give, so that Render only blends pixels.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "classic/classic_canvas.h"
#include "classic/png_image.h"

namespace envpool_core::classic {

class PendulumArrow {
 public:
  // `scale`: pixels per metre of the frame; `max_torque`: the largest |u|.
  PendulumArrow(const RgbaImage& image, double scale, double max_torque);

  // Draws the arrow of torque `u` centred on (centre, centre), as gymnasium's blit.
  void Draw(ClassicCanvas& canvas, int centre, float u) const;

  // Reads `<assets_dir>/clockwise.png` for every Pendulum made afterwards.
  static void Load(const std::string& assets_dir, double scale, double max_torque);
  // The arrow Load read; null before, or where gymnasium's assets were not found.
  static std::shared_ptr<const PendulumArrow> Loaded();

 private:
  float scale_;
  std::vector<RgbaImage> by_side_;  // by_side_[n]: the image scaled to n x n
};

}  // namespace envpool_core::classic
