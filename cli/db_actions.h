// The actions of `tunefarm db`, one file each; db_command.cc dispatches to them. Each takes
// argv[0] = the action's name and returns the exit code (cli/command.h).
#pragma once

namespace tunefarm::cli {

int RunDbBest(int argc, char** argv);    // db_records.cc
int RunDbTop(int argc, char** argv);     // db_records.cc
int RunDbStats(int argc, char** argv);   // db_stats.cc
int RunDbJobs(int argc, char** argv);    // db_jobs.cc
int RunDbExport(int argc, char** argv);  // db_export.cc
int RunDbImport(int argc, char** argv);  // db_import.cc
int RunDbCheck(int argc, char** argv);   // db_check.cc

}  // namespace tunefarm::cli
