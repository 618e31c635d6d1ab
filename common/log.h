// A tiny leveled logger to stderr. The level comes from the environment variable TUNEFARM_LOG
// (error, warn, info, debug; default warn), read once:
//   TF_LOG(DEBUG, "passes") << "bn-fold: folded BatchNormalization 'bn1' into Conv 'conv1'";
// A disabled statement does not evaluate its stream arguments.
#pragma once

#include <sstream>
#include <string>
#include <string_view>

namespace tunefarm::log {

enum class Level { kError = 0, kWarn = 1, kInfo = 2, kDebug = 3 };

// Spellings for TF_LOG's first argument (token-pasted so a stray -DDEBUG cannot break it).
inline constexpr Level kLevelERROR = Level::kError;
inline constexpr Level kLevelWARN = Level::kWarn;
inline constexpr Level kLevelINFO = Level::kInfo;
inline constexpr Level kLevelDEBUG = Level::kDebug;

std::string_view LevelName(Level level);
// "error", "warn", "info", "debug" (any case); false for anything else.
bool ParseLevel(std::string_view text, Level* level);

Level CurrentLevel();
void SetLevel(Level level);  // overrides TUNEFARM_LOG (tests)
inline bool Enabled(Level level) { return static_cast<int>(level) <= static_cast<int>(CurrentLevel()); }

// One log line, written whole to stderr when destroyed: "[tunefarm debug passes] message".
class Message {
 public:
  Message(Level level, std::string_view tag) : level_(level), tag_(tag) {}
  ~Message();
  Message(const Message&) = delete;
  Message& operator=(const Message&) = delete;

  template <typename T>
  Message& operator<<(const T& value) {
    stream_ << value;
    return *this;
  }

 private:
  Level level_;
  std::string tag_;
  std::ostringstream stream_;
};

struct Voidify {
  void operator&(const Message&) {}
};

}  // namespace tunefarm::log

// A conditional expression (not an if) so TF_LOG is safe inside an unbraced if/else; `&` binds
// looser than `<<`, so the whole stream is built before Voidify swallows it.
#define TF_LOG(level, tag)                                                \
  !::tunefarm::log::Enabled(::tunefarm::log::kLevel##level)               \
      ? (void)0                                                           \
      : ::tunefarm::log::Voidify() & ::tunefarm::log::Message(::tunefarm::log::kLevel##level, tag)
