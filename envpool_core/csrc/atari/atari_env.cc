#include "atari/atari_env.h"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>

#include "ale/ale_interface.hpp"
#include "ale/emucore/Console.hxx"
#include "ale/emucore/MD5.hxx"
#include "ale/emucore/MediaSrc.hxx"
#include "ale/emucore/OSystem.hxx"
#include "ale/emucore/Settings.hxx"
#include "ale/games/RomSettings.hpp"
#include "ale/games/Roms.hpp"

namespace envpool_core::atari {

namespace {

// The console's 60 Hz (ALE emulates every ROM at the NTSC rate), so that render_fps plays a
// game in real time; ale-py's metadata says 30 whatever the frame skip.
constexpr double kAtariFrameRate = 60.0;
// The 2600's RAM (a 6532 RIOT's 128 bytes), which ALE's ALERAM holds.
constexpr int kRamBytes = 128;

std::string RomError(const Config& config, const std::string& what) {
  return config.GetString("task_id") + ": " + what +
         " (the ROMs come from the installed ale-py package; reinstall ale-py==0.12.1)";
}

// The screen ALE gives this ROM, rows x columns. Its height is a property of
// the game (210 rows for most, up to 250 for PAL and some other ROMs), set
// when the emulator's console is built. That is the first half of
// ALEInterface::loadROM, done here without the game reset that makes a full
// load several times slower, so a spec costs little more than reading the ROM.
std::array<int, 2> ScreenSize(const std::string& rom_path) {
  // Declared in ALEInterface's order, so they are destroyed in its order too.
  std::unique_ptr<ale::stella::OSystem> os;
  std::unique_ptr<ale::stella::Settings> settings;
  ale::ALEInterface::createOSystem(os, settings);
  ale::ALEInterface::loadSettings(rom_path, os);
  const ale::stella::MediaSource& media = os->console().mediaSource();
  return {static_cast<int>(media.height()), static_cast<int>(media.width())};
}

// Observations are only downscaled, so each side is at most the screen's.
void CheckObsSide(const Config& config, const char* option, int screen, const char* side) {
  std::int64_t value = config.GetInt(option);
  if (value > screen) {
    throw std::invalid_argument("invalid value " + std::to_string(value) + " for '" + option +
                                "': expected a value in [1, " + std::to_string(screen) + "], " +
                                config.GetString("task_id") + "'s screen " + side +
                                " (observations are downscaled, never enlarged)");
  }
}

// mode and difficulty: -1 (the game's default) or one of the values the game has.
void CheckVariant(const Config& config, const char* option, const char* plural,
                  const std::vector<unsigned>& available) {
  std::int64_t value = config.GetInt(option);
  auto is_value = [value](unsigned v) { return static_cast<std::int64_t>(v) == value; };
  if (value == -1 || std::any_of(available.begin(), available.end(), is_value)) return;
  std::string allowed;
  for (unsigned v : available) {
    if (!allowed.empty()) allowed += ", ";
    allowed += std::to_string(v);
  }
  throw std::invalid_argument("invalid value " + std::to_string(value) + " for '" + option +
                              "': " + config.GetString("task_id") + " has " + plural + " [" +
                              allowed + "], or -1 for its default");
}

}  // namespace

std::vector<OptionDef> AtariOptions() {
  return {
      OptionDef::Int("max_episode_steps", 27000,
                     "agent steps before truncation (27000 x frame_skip 4 = 108000 frames)", 1),
      // The upper bounds depend on the game's screen; MakeSpec checks them.
      OptionDef::Int("img_height", 84,
                     "observation height, at most the screen's (210 rows for most games, "
                     "up to 250); the screen height: no vertical resize",
                     1),
      OptionDef::Int("img_width", 84,
                     "observation width, at most the screen's (160); the screen width: "
                     "no horizontal resize",
                     1),
      OptionDef::Int("stack_num", 4, "frames stacked in an observation", 1, 256),
      OptionDef::Bool("gray_scale", true,
                      "grayscale frames (1 channel each); False: RGB (3 channels each)"),
      OptionDef::Int("frame_skip", 4, "emulator frames per agent step (action repeat)", 1, 1000),
      OptionDef::Int("noop_max", 30,
                     "reset performs 1..noop_max no-op frames (one fewer with FIRE); 0: none", 0,
                     100000),
      OptionDef::Bool("episodic_life", false,
                      "a life loss ends the episode; the game restarts only at game over"),
      OptionDef::Bool("zero_discount_on_life_loss", false, "discount 0 on a step that loses a life"),
      OptionDef::Bool("reward_clip", false,
                      "reward is the sign of the game reward (info['reward'] stays unclipped)"),
      OptionDef::Float("repeat_action_probability", 0.0,
                       "sticky actions: chance that the emulator repeats the previous action "
                       "on a frame",
                       0.0, 1.0),
      OptionDef::Bool("use_fire_reset", true, "press FIRE on reset when the game has FIRE"),
      OptionDef::Bool("full_action_space", false,
                      "all 18 actions instead of the game's minimal action set"),
      OptionDef::Bool("use_inter_area_resize", true,
                      "area resize (as cv2.INTER_AREA); False: bilinear (cv2.INTER_LINEAR)"),
      // The games' own variants (Machado et al. 2018); which exist depends on the game, so
      // MakeSpec checks them.
      OptionDef::Int("mode", -1, "the game mode, one of the game's (ALE's modes); -1: its default",
                     -1),
      OptionDef::Int("difficulty", -1,
                     "the game difficulty, one of the game's (ALE's difficulties); -1: its default",
                     -1),
  };
}

EnvSpec AtariEnv::MakeSpec(const Config& config) {
  namespace fs = std::filesystem;
  const std::string& rom_path = config.GetString("rom_path");
  std::error_code ec;
  if (!fs::is_regular_file(rom_path, ec)) {
    throw std::invalid_argument(RomError(config, "ROM file " + rom_path + " not found"));
  }
  std::ifstream in(rom_path, std::ios::binary);
  std::vector<std::uint8_t> rom((std::istreambuf_iterator<char>(in)),
                                std::istreambuf_iterator<char>());
  if (!in.good() && !in.eof()) {
    throw std::invalid_argument(RomError(config, "cannot read ROM file " + rom_path));
  }
  std::string md5 = ale::stella::MD5(rom.data(), static_cast<std::uint32_t>(rom.size()));
  std::unique_ptr<ale::RomSettings> settings(ale::buildRomRLWrapper(rom_path, md5));
  if (!settings) {
    throw std::invalid_argument(
        RomError(config, "ROM file " + rom_path + " (MD5 " + md5 + ") is not a game ALE supports"));
  }
  if (settings->md5() != md5) {
    throw std::invalid_argument(RomError(config, "ROM file " + rom_path + " has MD5 " + md5 +
                                                     ", expected " + settings->md5()));
  }
  CheckVariant(config, "mode", "modes", settings->getAvailableModes());
  CheckVariant(config, "difficulty", "difficulties", settings->getAvailableDifficulties());
  std::size_t num_actions = config.GetBool("full_action_space")
                                ? settings->getAllActions().size()
                                : settings->getMinimalActionSet().size();

  int stack = static_cast<int>(config.GetInt("stack_num"));
  int channels = config.GetBool("gray_scale") ? 1 : 3;
  std::array<int, 2> screen = ScreenSize(rom_path);
  CheckObsSide(config, "img_height", screen[0], "height");
  CheckObsSide(config, "img_width", screen[1], "width");
  int h = static_cast<int>(config.GetInt("img_height"));
  int w = static_cast<int>(config.GetInt("img_width"));
  EnvSpec spec;
  spec.obs.push_back(MakeArraySpec<std::uint8_t>("obs", {stack * channels, h, w}, {0.0}, {255.0}));
  spec.info.push_back(MakeArraySpec<std::int32_t>("lives", {}));
  spec.info.push_back(MakeArraySpec<float>("reward", {}));
  // int32 as EnvPool's: clients write 1 - info["terminated"], which numpy refuses on bool.
  spec.info.push_back(MakeArraySpec<std::int32_t>("terminated", {}, {0.0}, {1.0}));
  // The console's 128 bytes of RAM after the step, as EnvPool's info["ram"].
  spec.info.push_back(MakeArraySpec<std::uint8_t>("ram", {kRamBytes}));
  spec.action = DiscreteActionSpec(static_cast<int>(num_actions));
  spec.render_shape = {screen[0], screen[1]};
  spec.render_fps = kAtariFrameRate / static_cast<double>(config.GetInt("frame_skip"));
  return spec;
}

AtariEnv::AtariEnv(const EnvSpec& spec, std::uint64_t seed)
    : ale_(std::make_unique<ale::ALEInterface>()),
      rom_path_(spec.config.GetString("rom_path")),
      mode_(spec.config.GetInt("mode")),
      difficulty_(spec.config.GetInt("difficulty")),
      noop_count_(0, std::max(0, static_cast<int>(spec.config.GetInt("noop_max")) - 1)),
      frame_skip_(static_cast<int>(spec.config.GetInt("frame_skip"))),
      noop_max_(static_cast<int>(spec.config.GetInt("noop_max"))),
      stack_num_(static_cast<int>(spec.config.GetInt("stack_num"))),
      height_(static_cast<int>(spec.config.GetInt("img_height"))),
      width_(static_cast<int>(spec.config.GetInt("img_width"))),
      channels_(spec.config.GetBool("gray_scale") ? 1 : 3),
      max_episode_steps_(static_cast<int>(spec.config.GetInt("max_episode_steps"))),
      episodic_life_(spec.config.GetBool("episodic_life")),
      zero_discount_on_life_loss_(spec.config.GetBool("zero_discount_on_life_loss")),
      reward_clip_(spec.config.GetBool("reward_clip")),
      fire_reset_(false),
      area_resize_(spec.config.GetBool("use_inter_area_resize")),
      screen_height_(spec.render_shape.at(0)),
      screen_width_(spec.render_shape.at(1)),
      pixels_(static_cast<std::size_t>(screen_height_) * static_cast<std::size_t>(screen_width_)),
      raw_size_(pixels_ * static_cast<std::size_t>(channels_)),
      frame_size_(static_cast<std::size_t>(channels_ * height_ * width_)),
      area_(screen_height_, screen_width_, height_, width_),
      linear_(screen_height_, screen_width_, height_, width_) {
  ale_->setFloat("repeat_action_probability",
                 static_cast<float>(spec.config.GetFloat("repeat_action_probability")));
  LoadGame(seed);
  // The buffers above are sized from MakeSpec's look at the console; a
  // screen of another size would overrun them.
  const ale::ALEScreen& screen = ale_->getScreen();
  if (screen.height() != static_cast<std::size_t>(screen_height_) ||
      screen.width() != static_cast<std::size_t>(screen_width_)) {
    throw std::runtime_error(spec.config.GetString("task_id") + ": ALE's screen is " +
                             std::to_string(screen.height()) + "x" +
                             std::to_string(screen.width()) + ", the spec says " +
                             std::to_string(screen_height_) + "x" +
                             std::to_string(screen_width_));
  }
  ale::ActionVect actions = spec.config.GetBool("full_action_space")
                                ? ale_->getLegalActionSet()
                                : ale_->getMinimalActionSet();
  for (ale::Action a : actions) {
    action_set_.push_back(static_cast<int>(a));
    if (a == ale::PLAYER_A_FIRE) fire_reset_ = spec.config.GetBool("use_fire_reset");
  }
  for (auto& r : raw_) r.assign(raw_size_, 0);
  frames_.assign(frame_size_ * static_cast<std::size_t>(stack_num_), 0);
  gray_ = AleGrayscaleTable(*ale_);
}

void AtariEnv::LoadGame(std::uint64_t seed) {
  // ALE wants a non-negative int; its RNG drives the sticky actions. ALE reads
  // it when it loads the ROM, as gymnasium's AtariEnv.seed() relies on.
  ale_->setInt("random_seed", static_cast<int>(seed % 2147483648ULL));
  ale_->loadROM(rom_path_);
  // Applied by every reset_game from now on, as gymnasium's AtariEnv sets them; MakeSpec
  // checked that the game has them.
  if (mode_ >= 0) ale_->setMode(static_cast<ale::game_mode_t>(mode_));
  if (difficulty_ >= 0) ale_->setDifficulty(static_cast<ale::difficulty_t>(difficulty_));
  noop_rng_.seed(static_cast<std::mt19937::result_type>(seed));
  noop_count_.reset();
}

void AtariEnv::Seed(std::uint64_t seed) {
  LoadGame(seed);
  // The next Reset starts a new game, as a new env's first does.
  continue_game_ = false;
  lives_ = 0;
  episode_steps_ = 0;
}

std::unique_ptr<GrayscaleTable> AleGrayscaleTable(ale::ALEInterface& ale) {
  // ALE's grayscale of palette index p is the low byte of entry p + 1 of its palette; 255
  // has no entry after it (0, see GrayscaleTable).
  std::uint8_t gray[256] = {};
  for (int p = 0; p < 255; ++p) {
    gray[p] = static_cast<std::uint8_t>(ale.theOSystem->colourPalette().getRGB(p + 1) & 0xFF);
  }
  return std::make_unique<GrayscaleTable>(gray);
}

AtariEnv::~AtariEnv() = default;

void AtariEnv::Capture(std::uint8_t* raw) {
  ale::pixel_t* screen = ale_->getScreen().getArray();
  if (channels_ == 1) {
    gray_->Apply(screen, raw, pixels_);
  } else {
    ale_->theOSystem->colourPalette().applyPaletteRGB(raw, screen, pixels_);
  }
}

void AtariEnv::CaptureMaxPool() {
  gray_->ApplyMax(ale_->getScreen().getArray(), raw_[1].data(), raw_[0].data(), pixels_);
}

void AtariEnv::PushFrame(const std::uint8_t* raw, bool fill) {
  newest_ = (newest_ + 1) % stack_num_;
  std::uint8_t* dst = frames_.data() + frame_size_ * static_cast<std::size_t>(newest_);
  const std::size_t plane = static_cast<std::size_t>(height_) * static_cast<std::size_t>(width_);
  if (height_ == screen_height_ && width_ == screen_width_) {
    if (channels_ == 1) {
      std::memcpy(dst, raw, plane);
    } else {
      for (std::size_t i = 0; i < plane; ++i) {
        for (std::size_t c = 0; c < 3; ++c) dst[c * plane + i] = raw[3 * i + c];
      }
    }
  } else {
    for (int c = 0; c < channels_; ++c) {
      std::uint8_t* out = dst + static_cast<std::size_t>(c) * plane;
      if (area_resize_) {
        area_.Resize(raw, channels_, c, out);
      } else {
        linear_.Resize(raw, channels_, c, out);
      }
    }
  }
  if (fill) {
    for (int i = 0; i < stack_num_; ++i) {
      if (i == newest_) continue;
      std::memcpy(frames_.data() + frame_size_ * static_cast<std::size_t>(i), dst, frame_size_);
    }
  }
}

void AtariEnv::WriteOutput(OutputRow& row, float info_reward) {
  // Oldest frame first: ring slots newest+1 .. end, then 0 .. newest.
  auto* obs = row.Obs<std::uint8_t>();
  std::size_t oldest = static_cast<std::size_t>((newest_ + 1) % stack_num_);
  std::size_t tail = (static_cast<std::size_t>(stack_num_) - oldest) * frame_size_;
  std::memcpy(obs, frames_.data() + oldest * frame_size_, tail);
  if (oldest != 0) std::memcpy(obs + tail, frames_.data(), oldest * frame_size_);
  *row.Info<std::int32_t>(0) = lives_;
  *row.Info<float>(1) = info_reward;
  *row.Info<std::int32_t>(2) = ale_->game_over() ? 1 : 0;
  std::memcpy(row.Info<std::uint8_t>(3), ale_->getRAM().array(), kRamBytes);
}

bool AtariEnv::Reset(OutputRow& row) {
  bool restart = !continue_game_ || ale_->game_over() || episode_steps_ >= max_episode_steps_;
  continue_game_ = false;
  if (restart) ale_->reset_game();
  // 1..noop_max no-ops, one fewer with FIRE.
  int noops = noop_max_ > 0 ? 1 + noop_count_(noop_rng_) : 0;
  if (fire_reset_) noops = std::max(0, noops - 1);
  for (int i = 0; i < noops; ++i) {
    ale_->act(ale::PLAYER_A_NOOP);
    if (ale_->game_over()) {
      ale_->reset_game();
      restart = true;
    }
  }
  if (fire_reset_) {
    ale_->act(ale::PLAYER_A_FIRE);
    if (ale_->game_over()) {
      ale_->reset_game();
      restart = true;
    }
  }
  if (restart) episode_steps_ = 0;
  Capture(raw_[0].data());
  std::fill(raw_[1].begin(), raw_[1].end(), std::uint8_t{0});
  PushFrame(raw_[0].data(), restart);
  lives_ = ale_->lives();
  row.reward = 0.0F;
  WriteOutput(row, 0.0F);
  return restart;
}

void AtariEnv::Step(const void* action, OutputRow& row) {
  auto index = static_cast<std::size_t>(*static_cast<const std::int32_t*>(action));
  auto a = static_cast<ale::Action>(action_set_[index]);  // range checked by the bindings
  ale::reward_t reward = 0;
  bool game_over = false;
  // Gymnasium's AtariPreprocessing (and EnvPool) keep two screen buffers across
  // steps: the second-to-last frame of a step goes to raw_[1], the last to
  // raw_[0], and raw_[0] becomes their max. A game that ends mid frame-skip
  // captures nothing more, so its final observation pools the buffers as they
  // were; we reproduce that exactly rather than show the true last frame.
  // In grayscale the last frame's capture and the max-pool are one pass.
  bool pooled = false;
  for (int f = 0; f < frame_skip_; ++f) {
    reward += ale_->act(a);
    game_over = ale_->game_over();
    if (game_over) break;
    if (f == frame_skip_ - 2) {
      Capture(raw_[1].data());
    } else if (f == frame_skip_ - 1) {
      if (frame_skip_ > 1 && channels_ == 1) {
        CaptureMaxPool();
        pooled = true;
      } else {
        Capture(raw_[0].data());
      }
    }
  }
  if (frame_skip_ > 1 && !pooled) {
    MaxPool(raw_[0].data(), raw_[1].data(), raw_[0].data(), raw_size_);
  }
  PushFrame(raw_[0].data(), false);
  ++episode_steps_;

  int lives = ale_->lives();
  bool life_lost = lives < lives_;
  // As EnvPool (and baselines' EpisodicLifeEnv): only while lives remain, so
  // games that hover at 0 lives end on the real game over. A life lost on the
  // time limit's step is not one either: the game restarts then, so that step
  // is the game's truncation, and `game over | truncated` marks every game end.
  bool life_episode_end = episodic_life_ && life_lost && lives > 0 && !game_over &&
                          episode_steps_ < max_episode_steps_;
  row.terminated = game_over || life_episode_end;
  continue_game_ = life_episode_end;
  if (zero_discount_on_life_loss_ && life_lost) row.discount = 0.0F;
  auto info_reward = static_cast<float>(reward);
  row.reward = reward_clip_ ? static_cast<float>((reward > 0) - (reward < 0)) : info_reward;
  lives_ = lives;
  WriteOutput(row, info_reward);
}

void AtariEnv::Render(std::uint8_t* rgb) {
  ale_->theOSystem->colourPalette().applyPaletteRGB(rgb, ale_->getScreen().getArray(), pixels_);
}

}  // namespace envpool_core::atari
