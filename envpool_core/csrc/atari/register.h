// Atari (ALE) tasks: one <Game>-v5 task per ROM shipped with ale-py.
#pragma once

#include <string>

#include "core/task_registry.h"

namespace envpool_core {

// Registers one task per `*.bin` ROM in `rom_dir` (ale-py's `roms/` folder)
// that ALE has game settings for (by file name or MD5), named like ale-py's
// gymnasium ids: `pong.bin` -> `Pong-v5`, `montezuma_revenge.bin` ->
// `MontezumaRevenge-v5`. Other files are skipped, as ale-py's gymnasium
// registration skips its two-player-only ROMs (combat, joust, maze_craze,
// warlords). Tasks already registered are kept, so calling it twice is
// harmless. Throws std::invalid_argument when `rom_dir` is not a readable folder.
void RegisterAtariTasks(TaskRegistry& registry, const std::string& rom_dir);

}  // namespace envpool_core
