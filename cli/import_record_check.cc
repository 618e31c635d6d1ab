#include "cli/import_record_check.h"

#include <map>
#include <memory>
#include <string>

#include "compiler/codegen/target.h"
#include "common/strings.h"
#include "compiler/schedule/state.h"
#include "compiler/te/dag_text.h"
#include "nlohmann/json.hpp"

namespace tunefarm::cli {

db::TuningDatabase::RecordCheck ImportRecordCheck(db::TuningDatabase* database) {
  // Parsed DAGs by workload key; null where the database has none (the record's own file may
  // be the first to mention the workload), so no replay is possible.
  auto dags = std::make_shared<std::map<std::string, std::shared_ptr<const te::ComputeDag>>>();
  return [database, dags](const db::TuningRecord& record) -> absl::Status {
    if (absl::StatusOr<codegen::Target> target = codegen::Target::Parse(record.target); !target.ok()) {
      return absl::InvalidArgumentError(StrCat("target '", record.target, "': ", std::string(target.status().message())));
    }
    if (nlohmann::json::parse(record.schedule_json, nullptr, /*allow_exceptions=*/false).is_discarded()) {
      return absl::InvalidArgumentError("the schedule is not JSON");
    }
    auto [it, inserted] = dags->try_emplace(record.workload_key);
    if (inserted) {
      absl::StatusOr<std::string> text = database->WorkloadDagText(record.workload_key);
      if (text.ok() && !text->empty()) {
        absl::StatusOr<std::shared_ptr<const te::ComputeDag>> dag = te::ParseDagText(*text);
        if (dag.ok()) it->second = *dag;
      }
    }
    if (it->second == nullptr) return absl::OkStatus();
    if (auto state = schedule::State::FromJson(it->second, record.schedule_json); !state.ok()) {
      return absl::InvalidArgumentError(
          StrCat("the schedule does not replay on workload ", record.workload_key, ": ", std::string(state.status().message())));
    }
    return absl::OkStatus();
  };
}

}  // namespace tunefarm::cli
