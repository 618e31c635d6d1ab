#include "compiler/schedule/step_json.h"

#include <cstdint>
#include <limits>

#include <nlohmann/json.hpp>

#include "common/strings.h"
#include "compiler/schedule/state.h"

namespace tunefarm::schedule {
namespace {

using json = nlohmann::json;
constexpr int kFormat = 1;

template <class... Fs>
struct Overloaded : Fs... {
  using Fs::operator()...;
};

json StepToJson(const Step& step) {
  return std::visit(
      Overloaded{
          [](const SplitStep& s) {
            json lengths = json::array();
            for (const auto& l : s.lengths) lengths.push_back(l ? json(*l) : json(nullptr));
            return json::array({"SP", s.stage, s.iter, s.extent, lengths});
          },
          [](const ReorderStep& s) { return json::array({"RE", s.stage, s.order}); },
          [](const FuseStep& s) { return json::array({"FU", s.stage, s.iters}); },
          [](const AnnotationStep& s) {
            return json::array({"AN", s.stage, s.iter, std::string(IterAnnotationName(s.annotation))});
          },
          [](const PragmaStep& s) {
            return json::array({"PR", s.stage, s.iter, StrCat("auto_unroll_max_step$", s.auto_unroll_max_step)});
          },
          [](const ComputeAtStep& s) { return json::array({"CA", s.stage, s.target_stage, s.target_iter}); },
          [](const ComputeInlineStep& s) { return json::array({"CI", s.stage}); },
          [](const ComputeRootStep& s) { return json::array({"CR", s.stage}); },
          [](const CacheWriteStep& s) { return json::array({"CHW", s.stage, s.scope}); },
          [](const CacheReadStep& s) { return json::array({"CHR", s.stage, s.scope, s.readers}); },
          [](const LayoutRewriteStep& s) { return json::array({"LR", s.stage, s.reader}); },
          [](const StorageAlignStep& s) { return json::array({"SA", s.stage, s.axis, s.factor, s.offset}); },
          [](const RfactorStep& s) {
            // Written only when not 0, so records made before the field existed keep their hash.
            return s.factor_axis == 0 ? json::array({"RF", s.stage, s.iter})
                                      : json::array({"RF", s.stage, s.iter, s.factor_axis});
          },
          [](const FollowSplitStep& s) { return json::array({"FSP", s.stage, s.iter, s.src_step, s.n_split}); },
          [](const FollowFusedSplitStep& s) {
            return json::array({"FFSP", s.stage, s.iter, s.src_steps, s.level, s.factor_or_nparts ? 1 : 0});
          },
      },
      step);
}

// An integer that T holds as written (json's get<T> would wrap 2^32 + 2 to 2 in an int, and a
// record would read back as another schedule).
template <typename T>
bool IsIntegerIn(const json& v) {
  if (!v.is_number_integer()) return false;
  if (v.is_number_unsigned()) return v.get<uint64_t>() <= static_cast<uint64_t>(std::numeric_limits<T>::max());
  const int64_t x = v.get<int64_t>();
  return x >= static_cast<int64_t>(std::numeric_limits<T>::min()) && x <= static_cast<int64_t>(std::numeric_limits<T>::max());
}

// Reads element i of a step array as T, or fails with a message naming the field.
template <typename T>
bool Field(const json& j, size_t i, T* out) {
  if (i >= j.size()) return false;
  const json& v = j[i];
  if constexpr (std::is_integral_v<T>) {
    if (!IsIntegerIn<T>(v)) return false;
  } else if constexpr (std::is_same_v<T, std::string>) {
    if (!v.is_string()) return false;
  } else if constexpr (std::is_same_v<T, std::vector<int>>) {
    if (!v.is_array()) return false;
    for (const json& e : v)
      if (!IsIntegerIn<int>(e)) return false;
  }
  *out = v.get<T>();
  return true;
}

absl::StatusOr<Step> StepFromJson(const json& j) {
  auto bad = [&](std::string_view why) { return absl::InvalidArgumentError(StrCat(why, ": ", j.dump())); };
  if (!j.is_array() || j.empty() || !j[0].is_string()) return bad("a step must be an array starting with its tag");
  std::string tag = j[0];
  if (tag == "SP") {
    SplitStep s;
    if (j.size() != 5 || !Field(j, 1, &s.stage) || !Field(j, 2, &s.iter) || !Field(j, 3, &s.extent) ||
        !j[4].is_array())
      return bad("malformed split step");
    for (const json& l : j[4]) {
      if (l.is_null()) {
        s.lengths.push_back(std::nullopt);
      } else if (IsIntegerIn<int64_t>(l)) {
        s.lengths.push_back(l.get<int64_t>());
      } else {
        return bad("split lengths must be integers or null");
      }
    }
    return Step(s);
  }
  if (tag == "RE" || tag == "FU") {
    int stage;
    std::vector<int> iters;
    if (j.size() != 3 || !Field(j, 1, &stage) || !Field(j, 2, &iters)) return bad("malformed step");
    return tag == "RE" ? Step(ReorderStep{stage, iters}) : Step(FuseStep{stage, iters});
  }
  if (tag == "AN") {
    AnnotationStep s;
    std::string name;
    if (j.size() != 4 || !Field(j, 1, &s.stage) || !Field(j, 2, &s.iter) || !Field(j, 3, &name))
      return bad("malformed annotation step");
    s.annotation = IterAnnotationFromName(name);
    if (s.annotation == IterAnnotation::kNone) return bad("unknown annotation");
    return Step(s);
  }
  if (tag == "PR") {
    PragmaStep s;
    std::string pragma;
    constexpr std::string_view kPrefix = "auto_unroll_max_step$";
    int64_t value;
    if (j.size() != 4 || !Field(j, 1, &s.stage) || !Field(j, 2, &s.iter) || !Field(j, 3, &pragma))
      return bad("malformed pragma step");
    if (!StartsWith(pragma, kPrefix) || !ParseInt64(std::string_view(pragma).substr(kPrefix.size()), &value) ||
        value < 0 || value > (1 << 20))
      return bad("unknown pragma");
    s.auto_unroll_max_step = static_cast<int>(value);
    return Step(s);
  }
  if (tag == "CA") {
    ComputeAtStep s;
    if (j.size() != 4 || !Field(j, 1, &s.stage) || !Field(j, 2, &s.target_stage) || !Field(j, 3, &s.target_iter))
      return bad("malformed compute_at step");
    return Step(s);
  }
  if (tag == "CI" || tag == "CR") {
    int stage;
    if (j.size() != 2 || !Field(j, 1, &stage)) return bad("malformed step");
    return tag == "CI" ? Step(ComputeInlineStep{stage}) : Step(ComputeRootStep{stage});
  }
  if (tag == "FSP") {
    FollowSplitStep s;
    if (j.size() != 5 || !Field(j, 1, &s.stage) || !Field(j, 2, &s.iter) || !Field(j, 3, &s.src_step) ||
        !Field(j, 4, &s.n_split))
      return bad("malformed follow_split step");
    return Step(s);
  }
  if (tag == "FFSP") {
    FollowFusedSplitStep s;
    int flag;
    if (j.size() != 6 || !Field(j, 1, &s.stage) || !Field(j, 2, &s.iter) || !Field(j, 3, &s.src_steps) ||
        !Field(j, 4, &s.level) || !Field(j, 5, &flag) || (flag != 0 && flag != 1))
      return bad("malformed follow_fused_split step");
    s.factor_or_nparts = flag == 1;
    return Step(s);
  }
  if (tag == "CHW") {
    CacheWriteStep s;
    if (j.size() != 3 || !Field(j, 1, &s.stage) || !Field(j, 2, &s.scope)) return bad("malformed cache_write step");
    return Step(s);
  }
  if (tag == "CHR") {
    CacheReadStep s;
    if (j.size() != 4 || !Field(j, 1, &s.stage) || !Field(j, 2, &s.scope) || !Field(j, 3, &s.readers))
      return bad("malformed cache_read step");
    return Step(s);
  }
  if (tag == "RF") {
    RfactorStep s;
    if ((j.size() != 3 && j.size() != 4) || !Field(j, 1, &s.stage) || !Field(j, 2, &s.iter) ||
        (j.size() == 4 && !Field(j, 3, &s.factor_axis)))
      return bad("malformed rfactor step");
    return Step(s);
  }
  if (tag == "LR") {
    LayoutRewriteStep s;
    if (j.size() != 3 || !Field(j, 1, &s.stage) || !Field(j, 2, &s.reader)) return bad("malformed layout rewrite step");
    return Step(s);
  }
  if (tag == "SA") {
    StorageAlignStep s;
    if (j.size() != 5 || !Field(j, 1, &s.stage) || !Field(j, 2, &s.axis) || !Field(j, 3, &s.factor) ||
        !Field(j, 4, &s.offset))
      return bad("malformed storage_align step");
    return Step(s);
  }
  return bad(StrCat("unknown step tag '", tag, "'"));
}

}  // namespace

std::string StepsToJson(const std::vector<Step>& steps) {
  json list = json::array();
  for (const Step& s : steps) list.push_back(StepToJson(s));
  return json{{"format", kFormat}, {"steps", list}}.dump();
}

absl::StatusOr<std::vector<Step>> StepsFromJson(std::string_view text) {
  json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return absl::InvalidArgumentError("schedule JSON does not parse");
  if (!j.is_object() || !j.contains("format") || !j.contains("steps") || !j["steps"].is_array())
    return absl::InvalidArgumentError("schedule JSON must be {\"format\":1,\"steps\":[...]}");
  if (j["format"] != kFormat)
    return absl::InvalidArgumentError(StrCat("schedule JSON format ", j["format"].dump(), " is not supported (want ", kFormat, ")"));
  std::vector<Step> steps;
  for (size_t i = 0; i < j["steps"].size(); ++i) {
    auto s = StepFromJson(j["steps"][i]);
    if (!s.ok()) return absl::InvalidArgumentError(StrCat("schedule step ", i, ": ", std::string(s.status().message())));
    steps.push_back(*std::move(s));
  }
  return steps;
}

}  // namespace tunefarm::schedule
