#include "compiler/codegen/shared_object.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>
#include <vector>

#include "absl/status/status.h"
#include "common/file_read.h"
#include "common/strings.h"
#include "common/temp_dir.h"
#include "lld/Common/Driver.h"
#include "llvm/Support/raw_ostream.h"

LLD_HAS_DRIVER(elf)

namespace tunefarm::codegen {
namespace {

bool WriteFile(const std::string& path, std::string_view bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  return static_cast<bool>(out);
}

// Runs ld.lld with `args` (argv[0] included) and waits for it; its messages go to `log`.
absl::Status RunLdLld(const std::vector<const char*>& args, const std::string& log) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  std::vector<char*> argv;
  for (const char* a : args) argv.push_back(const_cast<char*>(a));
  argv.push_back(nullptr);
  char* no_environment[] = {nullptr};
  pid_t pid = 0;
  const int spawned = posix_spawn(&pid, LdLldPath(), &actions, nullptr, argv.data(), no_environment);
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0) return absl::FailedPreconditionError(StrCat("cannot run ", LdLldPath(), ": ", std::strerror(spawned)));
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return absl::InternalError(StrCat("waiting for ld.lld: ", std::strerror(errno)));
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return absl::OkStatus();
  absl::StatusOr<std::string> said = ReadWholeFile(log, "ld.lld's messages");
  return absl::InternalError(StrCat("ld.lld failed (", WIFEXITED(status) ? "exit " : "signal ",
                                    WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status),
                                    "): ", said.ok() ? *said : ""));
}

// lld's library entry point; lld keeps global state, so one link at a time.
absl::Status RunLldInProcess(const std::vector<const char*>& args) {
  std::string out_text, err_text;
  llvm::raw_string_ostream out_stream(out_text), err_stream(err_text);
  lld::Result result;
  {
    static std::mutex link_mutex;
    std::lock_guard<std::mutex> lock(link_mutex);
    result = lld::lldMain(args, out_stream, err_stream, {{lld::Gnu, &lld::elf::link}});
  }
  err_stream.flush();
  if (result.retCode != 0) return absl::InternalError(StrCat("lld failed: ", err_text));
  return absl::OkStatus();
}

}  // namespace

const char* LdLldPath() { return TUNEFARM_LD_LLD; }

absl::StatusOr<std::string> LinkSharedObject(std::string_view object, Linker linker) {
  const std::string objects[] = {std::string(object)};
  return LinkSharedObject(objects, linker);
}

absl::StatusOr<std::string> LinkSharedObject(std::span<const std::string> objects, Linker linker) {
  absl::StatusOr<TempDir> dir = TempDir::Create("tunefarm-link");
  if (!dir.ok()) return absl::InternalError(dir.status().message());
  const std::string out = dir->File("kernel.so");
  std::vector<std::string> inputs;
  for (size_t i = 0; i < objects.size(); ++i) {
    inputs.push_back(dir->File(objects.size() == 1 ? std::string("kernel.o") : StrCat("kernel", i, ".o")));
    if (!WriteFile(inputs.back(), objects[i])) return absl::InternalError(StrCat("cannot write ", inputs.back()));
  }
  std::vector<const char*> args = {"ld.lld",      "-shared", "--build-id=none", "-z", "now",
                                   "-z",          "noexecstack", "--hash-style=both", "-o",
                                   out.c_str()};
  for (const std::string& in : inputs) args.push_back(in.c_str());
  absl::Status linked = linker == Linker::kInProcess ? RunLldInProcess(args) : RunLdLld(args, dir->File("ld.log"));
  if (!linked.ok()) return linked;
  absl::StatusOr<std::string> bytes = ReadWholeFile(out, "linked kernel");
  if (!bytes.ok()) return absl::InternalError(bytes.status().message());
  return bytes;
}

}  // namespace tunefarm::codegen
