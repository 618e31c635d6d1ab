#include "cli/table.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>

#include "common/strings.h"

namespace tunefarm::cli {

void Table::AddRow(std::vector<std::string> cells) {
  cells.resize(columns_.size());
  rows_.push_back(std::move(cells));
}

std::string Table::ToString() const {
  std::vector<size_t> widths;
  for (const Column& column : columns_) widths.push_back(column.header.size());
  for (const auto& row : rows_) {
    for (size_t c = 0; c < row.size(); ++c) widths[c] = std::max(widths[c], row[c].size());
  }
  auto append_line = [&](std::string* out, const std::vector<std::string>& cells) {
    std::string line;
    for (size_t c = 0; c < cells.size(); ++c) {
      if (c > 0) line.append("  ");
      const std::string pad(widths[c] - cells[c].size(), ' ');
      if (columns_[c].align == Align::kRight) {
        StrAppend(&line, pad, cells[c]);
      } else {
        StrAppend(&line, cells[c], pad);
      }
    }
    line.erase(line.find_last_not_of(' ') + 1);
    StrAppend(out, line, "\n");
  };
  std::string text;
  std::vector<std::string> headers;
  for (const Column& column : columns_) headers.push_back(column.header);
  append_line(&text, headers);
  for (const auto& row : rows_) append_line(&text, row);
  return text;
}

std::string FormatSeconds(double seconds) {
  if (!std::isfinite(seconds)) return "-";
  struct Unit {
    double scale;
    const char* name;
  };
  static constexpr Unit kUnits[] = {{1.0, "s"}, {1e-3, "ms"}, {1e-6, "us"}, {1e-9, "ns"}};
  Unit unit = kUnits[3];
  for (const Unit& u : kUnits) {
    if (std::fabs(seconds) >= u.scale) {
      unit = u;
      break;
    }
  }
  const double value = seconds / unit.scale;
  const int decimals = std::fabs(value) >= 100 ? 1 : std::fabs(value) >= 10 ? 2 : 3;
  char text[64];
  std::snprintf(text, sizeof text, "%.*f %s", decimals, value, unit.name);
  return text;
}

std::string FormatSeconds(const std::optional<double>& seconds) {
  return seconds.has_value() ? FormatSeconds(*seconds) : "-";
}

std::string FormatUnixMs(int64_t unix_ms) {
  if (unix_ms == 0) return "-";
  const std::time_t seconds = static_cast<std::time_t>(unix_ms / 1000);
  std::tm utc{};
  if (gmtime_r(&seconds, &utc) == nullptr) return std::to_string(unix_ms);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%d %H:%M:%SZ", &utc);
  return text;
}

}  // namespace tunefarm::cli
