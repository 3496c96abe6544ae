#include "atari/register.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <stdexcept>
#include <vector>

#include "ale/common/Log.hpp"
#include "ale/emucore/MD5.hxx"
#include "ale/games/RomSettings.hpp"
#include "ale/games/Roms.hpp"
#include "atari/atari_env.h"

namespace envpool_core {

namespace {

// ale-py's rom_id_to_name: Python's str.title() without underscores
// ("montezuma_revenge" -> "MontezumaRevenge", "tic_tac_toe_3d" -> "TicTacToe3D").
std::string RomIdToName(const std::string& rom_id) {
  std::string name;
  bool prev_cased = false;
  for (char c : rom_id) {
    auto u = static_cast<unsigned char>(c);
    bool cased = std::isalpha(u) != 0;
    if (cased) c = static_cast<char>(prev_cased ? std::tolower(u) : std::toupper(u));
    prev_cased = cased;
    if (c != '_') name += c;
  }
  return name;
}

// Whether ALE has game settings (reward, lives, game over) for the ROM, found
// as ALE finds them: by file name, else by MD5. ale-py ships ROMs without
// them (combat, joust, maze_craze, warlords: two-player games that ALE's
// single-agent interface cannot play), and its gymnasium registration skips
// those; loading one would end the process, so they are no tasks here either.
bool AleKnowsRom(const std::filesystem::path& rom) {
  std::unique_ptr<ale::RomSettings> by_name(ale::buildRomRLWrapper(rom, ""));
  if (by_name) return true;
  std::ifstream in(rom, std::ios::binary);
  std::vector<std::uint8_t> bytes((std::istreambuf_iterator<char>(in)),
                                  std::istreambuf_iterator<char>());
  std::string md5 = ale::stella::MD5(bytes.data(), static_cast<std::uint32_t>(bytes.size()));
  std::unique_ptr<ale::RomSettings> by_md5(ale::buildRomRLWrapper(rom, md5));
  return by_md5 != nullptr;
}

}  // namespace

void RegisterAtariTasks(TaskRegistry& registry, const std::string& rom_dir) {
  namespace fs = std::filesystem;
  // ALE prints a banner and per-ROM details at its default (Info) level.
  ale::Logger::setMode(ale::Logger::Error);

  std::error_code ec;
  if (!fs::is_directory(rom_dir, ec)) {
    throw std::invalid_argument("Atari ROM directory " + rom_dir + " not found");
  }
  std::vector<fs::path> roms;
  for (const auto& entry : fs::directory_iterator(rom_dir, ec)) {
    if (entry.path().extension() == ".bin") roms.push_back(entry.path());
  }
  if (ec) {
    throw std::invalid_argument("cannot list Atari ROM directory " + rom_dir + ": " +
                                ec.message());
  }
  std::sort(roms.begin(), roms.end());

  for (const fs::path& rom : roms) {
    std::string rom_id = rom.stem().string();
    TaskDef task;
    task.id = RomIdToName(rom_id) + "-v5";
    if (registry.Has(task.id) || !AleKnowsRom(rom)) continue;
    task.options = atari::AtariOptions();
    task.fixed.Set("task", rom_id);
    task.fixed.Set("rom_path", fs::absolute(rom).string());
    task.make_spec = atari::AtariEnv::MakeSpec;
    task.make_env = [](const EnvSpec& spec, int, std::uint64_t seed) {
      return std::make_unique<atari::AtariEnv>(spec, seed);
    };
    registry.Add(std::move(task));
  }
}

}  // namespace envpool_core
