// `tunefarm db <action>`: the table of actions over the tuning database.
#include "cli/db_actions.h"
#include "cli/dispatch.h"
#include "cli/subcommands.h"

namespace tunefarm::cli {
namespace {

constexpr Subcommand kDbActions[] = {
    {"best", "the fastest valid record of a workload on a target and thread count", RunDbBest},
    {"top", "the k fastest valid records of a workload on a target and thread count", RunDbTop},
    {"stats", "per workload: records, valid records, best cost, targets", RunDbStats},
    {"jobs", "tuning jobs with their state and progress", RunDbJobs},
    {"export", "write every record as JSON lines", RunDbExport},
    {"import", "add the records of a JSON-lines file (creates the database)", RunDbImport},
    {"check", "run SQLite's integrity check", RunDbCheck},
};

}  // namespace

int RunDbCommand(int argc, char** argv) { return Dispatch("tunefarm db", kDbActions, argc, argv); }

}  // namespace tunefarm::cli
