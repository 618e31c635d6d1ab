// Human-readable output: an aligned text table, and the units the tables print in.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tunefarm::cli {

class Table {
 public:
  enum class Align { kLeft, kRight };
  struct Column {
    std::string header;
    Align align = Align::kLeft;
  };

  explicit Table(std::vector<Column> columns) : columns_(std::move(columns)) {}

  // A row has exactly one cell per column (missing cells print empty, extra ones are dropped).
  void AddRow(std::vector<std::string> cells);
  bool empty() const { return rows_.empty(); }

  // Header, then rows; columns two spaces apart, each as wide as its widest cell; no trailing
  // spaces.
  std::string ToString() const;

 private:
  std::vector<Column> columns_;
  std::vector<std::vector<std::string>> rows_;
};

// Seconds with a unit and four significant digits: "812.5 ns", "12.34 us", "1.500 ms", "2.000 s".
// Infinity and NaN print as "-".
std::string FormatSeconds(double seconds);
// The same for an optional value; nullopt prints as "-".
std::string FormatSeconds(const std::optional<double>& seconds);
// Unix milliseconds as UTC "2024-05-01 12:30:00Z"; 0 prints as "-".
std::string FormatUnixMs(int64_t unix_ms);

}  // namespace tunefarm::cli
