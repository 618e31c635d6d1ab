#include "device_agent/measure_protocol.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <stdexcept>

#include <nlohmann/json.hpp>

namespace tunefarm::agent {
namespace {

using deploy::Result;
using deploy::Status;
using deploy::StatusCode;
using nlohmann::json;

constexpr OutcomeKind kKinds[] = {OutcomeKind::kOk,          OutcomeKind::kLoadError,
                                  OutcomeKind::kRuntimeError, OutcomeKind::kWrongResult,
                                  OutcomeKind::kOutOfMemory, OutcomeKind::kBadRequest};

std::string Exact(double value) {
  char text[40];
  std::snprintf(text, sizeof text, "%.17g", value);
  return text;
}

// JSON has no infinity or NaN: they travel as strings.
json Number(double value) {
  if (std::isfinite(value)) return value;
  if (std::isnan(value)) return "nan";
  return value > 0 ? "inf" : "-inf";
}

double ToDouble(const json& value) {
  if (value.is_number()) return value.get<double>();
  const std::string text = value.is_string() ? value.get<std::string>() : "nan";
  if (text == "inf") return std::numeric_limits<double>::infinity();
  if (text == "-inf") return -std::numeric_limits<double>::infinity();
  return std::numeric_limits<double>::quiet_NaN();
}

template <typename T>
bool ParseInteger(std::string_view text, T* out) {
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), *out);
  return error == std::errc() && end == text.data() + text.size();
}

bool ParseDouble(const std::string& text, double* out) {
  char* end = nullptr;
  *out = std::strtod(text.c_str(), &end);
  return !text.empty() && end == text.c_str() + text.size();
}

// Throws on an unknown kind or a field of the wrong type.
MeasureOutcome ParseOutcome(const json& parsed) {
  const std::string kind = parsed["outcome"].get<std::string>();
  MeasureOutcome outcome;
  bool known = false;
  for (OutcomeKind candidate : kKinds) {
    if (kind == OutcomeKindName(candidate)) {
      outcome.kind = candidate;
      known = true;
    }
  }
  if (!known) throw std::invalid_argument("unknown outcome \"" + kind + "\"");
  outcome.kernel_code = parsed.value("kernel_code", 0);
  outcome.message = parsed.value("message", "");
  outcome.checked = parsed.value("checked", false);
  outcome.correct = parsed.value("correct", false);
  outcome.max_abs_error = ToDouble(parsed.value("max_abs_error", json(0)));
  outcome.max_rel_error = ToDouble(parsed.value("max_rel_error", json(0)));
  outcome.number = parsed.value("number", 0);
  if (parsed.contains("costs_sec") && parsed["costs_sec"].is_array()) {
    for (const json& cost : parsed["costs_sec"]) outcome.costs_sec.push_back(ToDouble(cost));
  }
  return outcome;
}

}  // namespace

std::vector<std::string> MeasureArgs(const MeasureSpec& spec) {
  std::vector<std::string> args = {
      "--number",        std::to_string(spec.number),
      "--repeat",        std::to_string(spec.repeat),
      "--min-repeat-ms", std::to_string(spec.min_repeat_ms),
      "--stop-above-sec", Exact(spec.stop_above_sec),
      "--threads",       std::to_string(spec.threads),
      "--flush-cache",   spec.flush_cache ? "1" : "0",
      "--seed",          std::to_string(spec.seed),
      "--atol",          Exact(spec.atol),
      "--rtol",          Exact(spec.rtol),
      "--memory-limit-bytes", std::to_string(spec.memory_limit_bytes),
      "--cpu-limit-sec", std::to_string(spec.cpu_limit_sec),
      "--batch-cpu-limit-sec", std::to_string(spec.batch_cpu_limit_sec),
      "--result-fd",     std::to_string(spec.result_fd),
  };
  if (!spec.device.empty()) args.insert(args.end(), {"--device", spec.device, "--cuda-driver", spec.cuda_driver});
  if (!spec.reference_path.empty()) {
    args.insert(args.end(), {"--reference", spec.reference_path, "--reference-entry",
                             spec.reference_entry});
    if (!spec.reference_outputs_path.empty()) {
      args.insert(args.end(), {"--reference-outputs", spec.reference_outputs_path});
    }
  }
  return args;
}

Result<MeasureSpec> ParseMeasureArgs(int argc, const char* const* argv) {
  MeasureSpec spec;
  for (int i = 1; i < argc; i += 2) {
    const std::string name = argv[i];
    if (i + 1 >= argc) {
      return Status(StatusCode::kInvalidArgument, "option " + name + " needs a value");
    }
    const std::string value = argv[i + 1];
    bool ok = true;
    if (name == "--reference") spec.reference_path = value;
    else if (name == "--reference-entry") spec.reference_entry = value;
    else if (name == "--reference-outputs") spec.reference_outputs_path = value;
    else if (name == "--number") ok = ParseInteger(value, &spec.number);
    else if (name == "--repeat") ok = ParseInteger(value, &spec.repeat);
    else if (name == "--min-repeat-ms") ok = ParseInteger(value, &spec.min_repeat_ms);
    else if (name == "--stop-above-sec") ok = ParseDouble(value, &spec.stop_above_sec) && spec.stop_above_sec >= 0;
    else if (name == "--threads") ok = ParseInteger(value, &spec.threads);
    else if (name == "--flush-cache") {
      ok = value == "0" || value == "1";
      spec.flush_cache = value == "1";
    }
    else if (name == "--seed") ok = ParseInteger(value, &spec.seed);
    else if (name == "--atol") ok = ParseDouble(value, &spec.atol);
    else if (name == "--rtol") ok = ParseDouble(value, &spec.rtol);
    else if (name == "--memory-limit-bytes") ok = ParseInteger(value, &spec.memory_limit_bytes);
    else if (name == "--cpu-limit-sec") ok = ParseInteger(value, &spec.cpu_limit_sec);
    else if (name == "--batch-cpu-limit-sec") ok = ParseInteger(value, &spec.batch_cpu_limit_sec);
    else if (name == "--result-fd") ok = ParseInteger(value, &spec.result_fd);
    else if (name == "--device") {
      spec.device = value;
      ok = value.rfind("cuda:", 0) == 0 && value.size() > 5 && value.find_first_not_of("0123456789", 5) == std::string::npos;
    }
    else if (name == "--cuda-driver") spec.cuda_driver = value;
    else return Status(StatusCode::kInvalidArgument, "unknown option " + name);
    if (!ok) {
      return Status(StatusCode::kInvalidArgument, "option " + name + ": bad value \"" + value + "\"");
    }
  }
  if (!spec.reference_path.empty() && spec.reference_entry.empty()) {
    return Status(StatusCode::kInvalidArgument, "--reference needs --reference-entry");
  }
  return spec;
}

std::string JobLine(const CandidateJob& job) {
  // Paths and entry names are not guaranteed UTF-8: replace bad bytes rather than throw.
  return json{{"kernel", job.kernel_path}, {"entry", job.entry}}.dump(
             -1, ' ', false, json::error_handler_t::replace) + "\n";
}

Result<CandidateJob> ParseJobLine(std::string_view line) {
  const json parsed = json::parse(line, nullptr, /*allow_exceptions=*/false);
  const auto text = [&](const char* key) -> std::string {
    return parsed.is_object() && parsed.contains(key) && parsed[key].is_string()
               ? parsed[key].get<std::string>()
               : "";
  };
  CandidateJob job{text("kernel"), text("entry")};
  if (job.kernel_path.empty() || job.entry.empty()) {
    return Status(StatusCode::kInvalidArgument,
                  "a job line needs \"kernel\" and \"entry\": " +
                      std::string(line.substr(0, 200)));
  }
  return job;
}

const char* OutcomeKindName(OutcomeKind kind) {
  switch (kind) {
    case OutcomeKind::kOk: return "ok";
    case OutcomeKind::kLoadError: return "load_error";
    case OutcomeKind::kRuntimeError: return "runtime_error";
    case OutcomeKind::kWrongResult: return "wrong_result";
    case OutcomeKind::kOutOfMemory: return "out_of_memory";
    case OutcomeKind::kBadRequest: return "bad_request";
  }
  return "unknown";
}

std::string StageLine(std::string_view stage) {
  return json{{"stage", std::string(stage)}}.dump() + "\n";
}

std::string OutcomeLine(const MeasureOutcome& outcome) {
  json costs = json::array();
  for (double cost : outcome.costs_sec) costs.push_back(Number(cost));
  const json line = {{"outcome", OutcomeKindName(outcome.kind)},
                     {"kernel_code", outcome.kernel_code},
                     {"message", outcome.message},
                     {"checked", outcome.checked},
                     {"correct", outcome.correct},
                     {"max_abs_error", Number(outcome.max_abs_error)},
                     {"max_rel_error", Number(outcome.max_rel_error)},
                     {"number", outcome.number},
                     {"costs_sec", costs}};
  // A kernel name or message is not guaranteed UTF-8: replace bad bytes rather than throw.
  return line.dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
}

std::string RetireLine(std::string_view reason) {
  return json{{"retire", std::string(reason)}}.dump(-1, ' ', false,
                                                    json::error_handler_t::replace) + "\n";
}

HelperReport ParseHelperReport(std::string_view text) {
  HelperReport report;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(start, end - start);
    start = end + 1;
    if (line.empty()) continue;
    const json parsed = json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (!parsed.is_object()) {
      report.error = "unparsable helper line: " + std::string(line.substr(0, 200));
      continue;
    }
    if (parsed.contains("stage") && parsed["stage"].is_string()) {
      report.last_stage = parsed["stage"].get<std::string>();
      continue;
    }
    if (parsed.contains("retire") && parsed["retire"].is_string()) {
      report.retired = parsed["retire"].get<std::string>();
      continue;
    }
    if (!parsed.contains("outcome") || !parsed["outcome"].is_string()) {
      report.error = "helper line with neither stage nor outcome: " + std::string(line.substr(0, 200));
      continue;
    }
    try {
      report.outcome = ParseOutcome(parsed);
    } catch (const std::exception& e) {
      // The pipe is open while the kernel runs, so a line may be anything: never throw.
      report.error = std::string("bad helper outcome: ") + e.what();
    }
  }
  return report;
}

size_t OutcomeEnd(std::string_view text) {
  size_t start = 0;
  for (size_t end; (end = text.find('\n', start)) != std::string_view::npos; start = end + 1) {
    const json parsed = json::parse(text.substr(start, end - start), nullptr,
                                    /*allow_exceptions=*/false);
    if (parsed.is_object() && parsed.contains("outcome")) return end + 1;
  }
  return std::string_view::npos;
}

}  // namespace tunefarm::agent
