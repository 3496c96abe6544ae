// The picture MountainCar-v0 and MountainCarContinuous-v0 render, as
// gymnasium draws it: the hill, the car with its two wheels, and the flag.
#pragma once

#include <cstdint>

namespace envpool_core::classic {

inline constexpr int kMountainCarRenderHeight = 400;
inline constexpr int kMountainCarRenderWidth = 600;
inline constexpr double kMountainCarRenderFps = 30.0;

// Draws the car at `position` and the flag at `goal_position` on a 400 x 600 frame.
void DrawMountainCar(std::uint8_t* rgb, double position, double goal_position);

}  // namespace envpool_core::classic
