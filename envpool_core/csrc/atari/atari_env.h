// Atari 2600 games through ALE, with EnvPool's preprocessing: frame skip,
// max-pool of the last two frames, grayscale, resize, frame stack, no-op and
// FIRE starts, episodic life, reward clipping and sticky actions.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "atari/image_ops.h"
#include "core/env.h"
#include "core/task_registry.h"

namespace ale {
class ALEInterface;
}

namespace envpool_core::atari {

// The options of every Atari task, with EnvPool's defaults.
std::vector<OptionDef> AtariOptions();

// The grayscale of the loaded game's palette, as ALE's applyPaletteGrayscale gives it.
std::unique_ptr<GrayscaleTable> AleGrayscaleTable(ale::ALEInterface& ale);

class AtariEnv : public Env {
 public:
  AtariEnv(const EnvSpec& spec, std::uint64_t seed);
  ~AtariEnv() override;

  bool Reset(OutputRow& row) override;
  void Step(const void* action, OutputRow& row) override;
  void Render(std::uint8_t* rgb) override;
  // Reloads the ROM with the new seed, as a new env of that seed loads it.
  void Seed(std::uint64_t seed) override;

  // Checks the ROM (exists, readable, known to ALE) and the observation size
  // against the game's screen, and builds the spec; render_shape holds the
  // game's screen size (most games 210 x 160, some up to 250 rows).
  static EnvSpec MakeSpec(const Config& config);

 private:
  // Writes the current screen (grayscale, or interleaved RGB) into `raw`.
  void Capture(std::uint8_t* raw);
  // Grayscale only: raw_[0] = max(current screen, raw_[1]) in one pass.
  void CaptureMaxPool();
  // Resizes `raw` into the newest slot of the frame ring; `fill` copies it
  // into every slot (the first frame of an episode).
  void PushFrame(const std::uint8_t* raw, bool fill);
  void WriteOutput(OutputRow& row, float info_reward);
  // Seeds ALE and the no-op draws, loads the ROM and sets its mode and difficulty.
  void LoadGame(std::uint64_t seed);

  std::unique_ptr<ale::ALEInterface> ale_;
  std::string rom_path_;
  std::int64_t mode_;        // -1: the game's default
  std::int64_t difficulty_;  // -1: the game's default
  std::vector<int> action_set_;  // ale::Action values
  // No-op start counts, drawn as EnvPool draws them (the same engine, seed and
  // distribution), so that a seed gives EnvPool's games.
  std::mt19937 noop_rng_;
  std::uniform_int_distribution<int> noop_count_;  // 0 .. noop_max - 1

  int frame_skip_;
  int noop_max_;
  int stack_num_;
  int height_;
  int width_;
  int channels_;  // 1 (grayscale) or 3 (RGB)
  int max_episode_steps_;
  bool episodic_life_;
  bool zero_discount_on_life_loss_;
  bool reward_clip_;
  bool fire_reset_;  // use_fire_reset and the game has FIRE
  bool area_resize_;

  int lives_ = 0;
  int episode_steps_ = 0;  // agent steps since the last full game reset
  // The last step ended the episode on a life loss (episodic_life) while the
  // game goes on: the next Reset continues the game instead of restarting it.
  bool continue_game_ = false;

  int screen_height_;  // the game's ALE screen (spec.render_shape)
  int screen_width_;
  std::size_t pixels_;      // screen_height_ x screen_width_
  std::size_t raw_size_;    // bytes of one captured screen
  std::size_t frame_size_;  // bytes of one preprocessed frame (channels x H x W)
  std::array<std::vector<std::uint8_t>, 2> raw_;
  std::vector<std::uint8_t> frames_;  // ring of stack_num preprocessed frames
  int newest_ = 0;                    // ring index of the newest frame
  AreaResizer area_;
  LinearResizer linear_;
  // Built from the palette after loadROM.
  std::unique_ptr<GrayscaleTable> gray_;
};

}  // namespace envpool_core::atari
