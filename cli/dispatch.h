// A table of subcommands and the dispatch over it, shared by `tunefarm` and `tunefarm db`.
#pragma once

#include <span>
#include <string>
#include <string_view>

namespace tunefarm::cli {

struct Subcommand {
  const char* name;
  const char* help;  // one line
  // argv[0] is the subcommand's name; returns the exit code.
  int (*run)(int argc, char** argv);
};

// "  name  help" per subcommand, names aligned.
std::string SubcommandList(std::span<const Subcommand> table);

// Runs the subcommand named by argv[1] with argv[1..). `program` is how the caller is typed
// ("tunefarm", "tunefarm db"). No subcommand, or an unknown one, is a usage error (exit 2)
// naming it, with the list on stderr; "--help", "-h" and "help" print the list on stdout, and
// "help NAME" runs NAME --help.
int Dispatch(std::string_view program, std::span<const Subcommand> table, int argc, char** argv);

}  // namespace tunefarm::cli
