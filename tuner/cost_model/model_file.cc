#include "tuner/cost_model/model_file.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string_view>
#include <vector>

#include "common/file_read.h"
#include "common/strings.h"
#include "common/sha256.h"

namespace tunefarm::tuner {
namespace {

constexpr std::string_view kMagic = "tunefarm-cost-model";
constexpr std::string_view kFormat = "xgboost-ubj";
constexpr std::string_view kVersion = "v1";
constexpr size_t kMaxHeaderBytes = 256;

absl::Status Damaged(const std::string& path, std::string_view what) {
  return absl::DataLossError(StrCat(path, ": not a usable cost model file: ", what));
}

// "key=<value>" -> value; false when the field has another key.
bool FieldValue(std::string_view field, std::string_view key, std::string_view* value) {
  if (field.size() <= key.size() || field.substr(0, key.size()) != key || field[key.size()] != '=') return false;
  *value = field.substr(key.size() + 1);
  return true;
}

}  // namespace

absl::Status WriteModelFile(const std::string& path, const ModelFileContents& contents) {
  std::string header = StrCat(kMagic, " ", kFormat, " ", kVersion, " cols=", contents.feature_cols,
                                    " bytes=", contents.booster.size(), " sha256=", Sha256Hex(contents.booster), "\n");
  std::string temporary = StrCat(path, ".tmp.", getpid());
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    if (!out) return absl::UnavailableError(StrCat(path, ": cannot create ", temporary));
    out.write(header.data(), header.size());
    out.write(contents.booster.data(), contents.booster.size());
    out.close();
    if (!out) {
      std::error_code ignored;
      std::filesystem::remove(temporary, ignored);
      return absl::UnavailableError(StrCat(path, ": cannot write ", temporary));
    }
  }
  std::error_code ec;
  std::filesystem::rename(temporary, path, ec);
  if (ec) {
    std::error_code ignored;
    std::filesystem::remove(temporary, ignored);
    return absl::UnavailableError(StrCat(path, ": cannot rename ", temporary, ": ", ec.message()));
  }
  return absl::OkStatus();
}

absl::StatusOr<ModelFileContents> ReadModelFile(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return absl::NotFoundError(StrCat(path, ": no such cost model file"));
  absl::StatusOr<std::string> read = ReadWholeFile(path, "cost model file");
  if (!read.ok()) return absl::UnavailableError(read.status().message());
  std::string bytes = *std::move(read);
  if (bytes.empty()) return Damaged(path, "empty file");

  size_t newline = bytes.find('\n');
  if (newline == std::string::npos || newline > kMaxHeaderBytes) return Damaged(path, "no header line");
  std::vector<std::string_view> fields = StrSplit(std::string_view(bytes).substr(0, newline), ' ');
  if (fields.size() != 6 || fields[0] != kMagic) return Damaged(path, "header is not a tunefarm cost model's");
  if (fields[1] != kFormat || fields[2] != kVersion) {
    return Damaged(path, StrCat("format '", fields[1], " ", fields[2], "', expected '", kFormat, " ", kVersion, "'"));
  }
  std::string_view cols_text, bytes_text, sha_text;
  int64_t cols = 0, size = 0;
  if (!FieldValue(fields[3], "cols", &cols_text) || !ParseInt64(cols_text, &cols) || cols <= 0 || cols > (1 << 20) ||
      !FieldValue(fields[4], "bytes", &bytes_text) || !ParseInt64(bytes_text, &size) || size < 0 ||
      !FieldValue(fields[5], "sha256", &sha_text) || sha_text.size() != 64) {
    return Damaged(path, "malformed header fields");
  }
  std::string_view booster = std::string_view(bytes).substr(newline + 1);
  if (booster.size() != static_cast<uint64_t>(size)) {
    return Damaged(path, StrCat(booster.size() < static_cast<uint64_t>(size) ? "truncated" : "trailing bytes", ": header says ", size,
                                      " model bytes, file holds ", booster.size()));
  }
  if (Sha256Hex(booster) != sha_text) return Damaged(path, "checksum mismatch (the model bytes are damaged)");
  return ModelFileContents{static_cast<int>(cols), std::string(booster)};
}

}  // namespace tunefarm::tuner
