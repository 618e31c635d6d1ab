#include "common/log.h"

#include <atomic>
#include <cctype>
#include <cstdio>
#include <cstdlib>

namespace tunefarm::log {
namespace {

Level LevelFromEnvironment() {
  Level level = Level::kWarn;
  if (const char* text = std::getenv("TUNEFARM_LOG"); text != nullptr && !ParseLevel(text, &level))
    std::fprintf(stderr, "[tunefarm warn log] TUNEFARM_LOG='%s' is not error, warn, info or debug\n", text);
  return level;
}

std::atomic<int>& LevelSlot() {
  static std::atomic<int> slot(static_cast<int>(LevelFromEnvironment()));
  return slot;
}

}  // namespace

std::string_view LevelName(Level level) {
  switch (level) {
    case Level::kError: return "error";
    case Level::kWarn: return "warn";
    case Level::kInfo: return "info";
    case Level::kDebug: return "debug";
  }
  return "?";
}

bool ParseLevel(std::string_view text, Level* level) {
  std::string lower;
  for (char c : text) lower.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  for (Level l : {Level::kError, Level::kWarn, Level::kInfo, Level::kDebug})
    if (lower == LevelName(l)) {
      *level = l;
      return true;
    }
  return false;
}

Level CurrentLevel() { return static_cast<Level>(LevelSlot().load(std::memory_order_relaxed)); }

void SetLevel(Level level) { LevelSlot().store(static_cast<int>(level), std::memory_order_relaxed); }

Message::~Message() {
  std::string line = "[tunefarm ";
  line.append(LevelName(level_)).append(" ").append(tag_).append("] ").append(stream_.str()).append("\n");
  // One write per line so lines from threads do not interleave.
  std::fputs(line.c_str(), stderr);
}

}  // namespace tunefarm::log
