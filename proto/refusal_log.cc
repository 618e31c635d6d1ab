#include "proto/refusal_log.h"

#include <chrono>
#include <mutex>

#include "absl/strings/str_cat.h"

namespace tunefarm::wire {
namespace {

struct RefusalLog {
  std::mutex mutex;
  std::function<void(const std::string&)> sink;
  std::chrono::steady_clock::time_point window_start;
  int lines_in_window = 0;
  int64_t suppressed = 0;
};

RefusalLog& Log() {
  static RefusalLog* log = new RefusalLog();  // never destroyed: handlers may run during exit
  return *log;
}

}  // namespace

void SetRefusalLog(std::function<void(const std::string&)> sink) {
  RefusalLog& log = Log();
  std::lock_guard<std::mutex> lock(log.mutex);
  log.sink = std::move(sink);
}

void LogRefusal(std::string_view method, std::string_view why) {
  RefusalLog& log = Log();
  std::lock_guard<std::mutex> lock(log.mutex);
  if (!log.sink) return;
  const auto now = std::chrono::steady_clock::now();
  if (now - log.window_start >= std::chrono::minutes(1)) {
    log.window_start = now;
    log.lines_in_window = 0;
  }
  if (log.lines_in_window >= kMaxLinesPerMinute) {
    ++log.suppressed;
    return;
  }
  ++log.lines_in_window;
  std::string line = absl::StrCat("refused a call to ", std::string(method), ": ", std::string(why));
  if (log.suppressed > 0) {
    absl::StrAppend(&line, " (", log.suppressed, " more refused calls not shown)");
    log.suppressed = 0;
  }
  log.sink(line);
}

}  // namespace tunefarm::wire
