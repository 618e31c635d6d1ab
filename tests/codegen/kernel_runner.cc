#include "tests/codegen/kernel_runner.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>

#include "compiler/codegen/host_target.h"
#include "common/strings.h"
#include "deploy/thread_pool.h"

namespace tunefarm::codegen::testing {

std::string BackendName(Backend b) { return b == Backend::kJit ? "jit" : "so"; }

std::vector<BackendAndLoop> EveryBackendWith(const std::vector<tir::ForKind>& loops) {
  std::vector<BackendAndLoop> out;
  for (Backend b : {Backend::kJit, Backend::kSharedObject})
    for (tir::ForKind loop : loops) out.emplace_back(b, loop);
  return out;
}

std::string BackendAndLoopName(const BackendAndLoop& param) {
  return BackendName(std::get<0>(param)) + "_" + std::string(tir::ForKindName(std::get<1>(param)));
}

std::string RunCommand(const std::string& command) {
  std::string out;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return out;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof(buf), pipe)) > 0) out.append(buf, n);
  pclose(pipe);
  return out;
}

std::vector<std::string> UndefinedSymbols(const std::string& so_bytes) {
  std::string path = WriteTempFile(so_bytes, ".so");
  std::string out = RunCommand(StrCat(TF_LLVM_TOOLS_DIR, "/llvm-nm -D --undefined-only ", path, " && echo NM_OK"));
  std::vector<std::string> symbols;
  bool ok = false;
  for (std::string_view line : StrSplit(out, '\n', /*skip_empty=*/true)) {
    if (line == "NM_OK") {
      ok = true;
      continue;
    }
    // "                 U memcpy"
    std::vector<std::string_view> words = StrSplit(line, ' ', /*skip_empty=*/true);
    symbols.emplace_back(words.back());
  }
  EXPECT_TRUE(ok) << "llvm-nm failed: " << out;
  return symbols;
}

std::string Disassemble(const std::string& bytes) {
  std::string path = WriteTempFile(bytes, ".o");
  return RunCommand(StrCat(TF_LLVM_TOOLS_DIR, "/llvm-objdump -d --no-show-raw-insn ", path));
}

std::unique_ptr<KernelRunner> KernelRunner::Create(const std::vector<tir::PrimFunc>& funcs, Backend backend,
                                                   const std::string& target_text) {
  Target target = HostTarget();
  if (!target_text.empty()) {
    absl::StatusOr<Target> parsed = Target::Parse(target_text);
    EXPECT_TRUE(parsed.ok()) << parsed.status();
    if (!parsed.ok()) return nullptr;
    target = *parsed;
  }
  auto runner = std::unique_ptr<KernelRunner>(new KernelRunner());
  runner->funcs_ = funcs;
  runner->backend_ = backend;
  if (backend == Backend::kJit) {
    absl::StatusOr<std::unique_ptr<JitModule>> jit = JitModule::Compile(funcs, target);
    EXPECT_TRUE(jit.ok()) << jit.status();
    if (!jit.ok()) return nullptr;
    runner->jit_ = std::move(*jit);
    runner->jit_->SetHostApi(deploy::HostApi());
  } else {
    absl::StatusOr<std::string> so = BuildSharedObject(funcs, target);
    EXPECT_TRUE(so.ok()) << so.status();
    if (!so.ok()) return nullptr;
    for (const std::string& sym : UndefinedSymbols(*so)) {
      EXPECT_TRUE(sym == "memcpy" || sym == "memset" || sym == "memmove") << "imports " << sym;
    }
    auto library = deploy::KernelLibrary::LoadFromBytes(so->data(), so->size(), funcs[0].name);
    EXPECT_TRUE(library.ok()) << library.status().ToString();
    if (!library.ok()) return nullptr;
    runner->library_ = std::move(library.value());
  }
  return runner;
}

int32_t KernelRunner::Run(const std::string& name, std::vector<void*> args, int threads) {
  deploy::ThreadPool pool(threads);
  const int32_t n = static_cast<int32_t>(args.size());
  if (backend_ == Backend::kSharedObject) {
    library_->set_thread_pool(&pool);
    deploy::Status s = library_->Call(name, args.data(), n);
    library_->set_thread_pool(nullptr);
    if (s.ok()) return 0;
    EXPECT_EQ(s.code(), deploy::StatusCode::kKernelError) << s.ToString();
    return s.code() == deploy::StatusCode::kKernelError ? s.kernel_code() : -1;
  }
  int64_t workspace_bytes = 0;
  for (const tir::PrimFunc& f : funcs_) {
    if (f.name == name) workspace_bytes = f.workspace_bytes;
  }
  deploy::AlignedBuffer workspace = std::move(deploy::AlignedBuffer::Allocate(workspace_bytes).value());
  tunefarm_kernel_fn fn = jit_->Lookup(name);
  EXPECT_NE(fn, nullptr) << name;
  if (fn == nullptr) return -1;
  deploy::ScopedCurrentPool scope(&pool);
  return fn(args.data(), n, workspace.data());
}

tir::Buffer Arg(const std::string& name, te::DType t, std::vector<int64_t> shape, tir::ArgRole role) {
  tir::Buffer b;
  b.name = name;
  b.dtype = t;
  b.shape = std::move(shape);
  b.scope = tir::BufferScope::kArg;
  b.role = role;
  return b;
}

tir::Buffer Workspace(const std::string& name, te::DType t, std::vector<int64_t> shape, int64_t offset) {
  tir::Buffer b;
  b.name = name;
  b.dtype = t;
  b.shape = std::move(shape);
  b.scope = tir::BufferScope::kWorkspace;
  b.workspace_offset = offset;
  return b;
}

tir::PrimFunc MakeFunc(const std::string& name, std::vector<tir::Buffer> buffers, int num_args,
                       tir::Stmt body, int64_t workspace_bytes) {
  tir::PrimFunc f;
  f.name = name;
  f.buffers = std::move(buffers);
  f.num_args = num_args;
  f.body = std::move(body);
  f.workspace_bytes = workspace_bytes;
  return f;
}

te::Expr LoadAt(const tir::PrimFunc& f, int buffer, te::Expr index) {
  return te::Load(f.buffers[buffer].dtype, buffer, {std::move(index)});
}

void FillRandom(Array<float>& a, uint32_t seed, float lo, float hi) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  for (size_t i = 0; i < a.size; ++i) a[i] = dist(rng);
}

}  // namespace tunefarm::codegen::testing
