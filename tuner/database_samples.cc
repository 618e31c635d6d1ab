#include "tuner/database_samples.h"

#include <map>
#include <memory>

#include "compiler/te/compute_dag.h"
#include "compiler/tir/lower.h"
#include "tuner/features/program_features.h"

namespace tunefarm::tuner {

absl::StatusOr<DatabaseSamples> SamplesFromDatabase(db::TuningDatabase* database, const std::string& target,
                                                    int threads, int limit) {
  auto records = database->RecordsOfTarget(target, threads, limit);
  if (!records.ok()) return records.status();
  DatabaseSamples out;
  std::map<std::string, std::shared_ptr<const te::ComputeDag>> dags;  // null: not replayable
  for (const db::TuningRecord& r : *records) {
    ++out.records;
    auto [it, inserted] = dags.try_emplace(r.workload_key);
    if (inserted) {
      auto text = database->WorkloadDagText(r.workload_key);
      if (text.ok() && !text->empty())
        if (auto dag = te::ComputeDag::Parse(*text); dag.ok()) it->second = *dag;
    }
    auto state = it->second ? schedule::State::FromJson(it->second, r.schedule_json)
                            : absl::StatusOr<schedule::State>(absl::NotFoundError("no DAG"));
    auto func = state.ok() ? tir::Lower(*state, "record") : absl::StatusOr<tir::PrimFunc>(state.status());
    auto features = func.ok() ? ExtractFeatures(*func) : absl::StatusOr<FeatureMatrix>(func.status());
    if (!features.ok()) {
      ++out.skipped;
      continue;
    }
    out.set.Add(r.workload_key, std::move(*features), r.IsValid() ? r.Cost() : 0.0);
  }
  return out;
}

}  // namespace tunefarm::tuner
