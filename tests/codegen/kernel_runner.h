// Test harness: hand-built PrimFuncs compiled for the host and run through either the JIT or a
// .so loaded by the deploy runtime, on a real thread pool. Every .so built here also has its
// imports checked (nothing but memcpy/memset/memmove).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "tests/common/temp_file.h"
#include "compiler/codegen/codegen.h"
#include "compiler/tir/stmt.h"
#include "deploy/aligned_buffer.h"
#include "deploy/kernel_library.h"

namespace tunefarm::codegen::testing {

enum class Backend { kJit, kSharedObject };
std::string BackendName(Backend b);

// Parameterised kernel tests run on every backend and the given loop kinds; the test-name
// suffix is "<backend>_<loop kind>".
using BackendAndLoop = std::tuple<Backend, tir::ForKind>;
std::vector<BackendAndLoop> EveryBackendWith(const std::vector<tir::ForKind>& loops);
std::string BackendAndLoopName(const BackendAndLoop& param);

// Runs `command` through the shell; returns its stdout (empty on failure to start).
std::string RunCommand(const std::string& command);
// A temporary file removed at exit (tests/common/temp_file.h).
using tunefarm::testing::WriteTempFile;
// The undefined dynamic symbols of a shared object (llvm-nm -D --undefined-only).
std::vector<std::string> UndefinedSymbols(const std::string& so_bytes);
// llvm-objdump -d of an object or shared object.
std::string Disassemble(const std::string& bytes);

class KernelRunner {
 public:
  // Compiles `funcs` for HostTarget() (or `target` if given); asserts on failure.
  static std::unique_ptr<KernelRunner> Create(const std::vector<tir::PrimFunc>& funcs, Backend backend,
                                              const std::string& target = "");
  // Calls entry `name` with `args` on a pool of `threads` threads; returns the kernel's code.
  int32_t Run(const std::string& name, std::vector<void*> args, int threads);

 private:
  std::vector<tir::PrimFunc> funcs_;
  Backend backend_;
  std::unique_ptr<JitModule> jit_;
  std::unique_ptr<deploy::KernelLibrary> library_;
};

// --- PrimFunc building shortcuts ---
tir::Buffer Arg(const std::string& name, te::DType t, std::vector<int64_t> shape,
                tir::ArgRole role = tir::ArgRole::kInput);
tir::Buffer Workspace(const std::string& name, te::DType t, std::vector<int64_t> shape, int64_t offset);
tir::PrimFunc MakeFunc(const std::string& name, std::vector<tir::Buffer> buffers, int num_args,
                       tir::Stmt body, int64_t workspace_bytes = 0);
te::Expr LoadAt(const tir::PrimFunc& f, int buffer, te::Expr index);

// A 64-byte aligned array of `n` values of T.
template <typename T>
struct Array {
  explicit Array(size_t n) : size(n), buffer(std::move(deploy::AlignedBuffer::Allocate(n * sizeof(T)).value())) {}
  T* data() { return buffer.As<T>(); }
  T& operator[](size_t i) { return data()[i]; }
  size_t size;
  deploy::AlignedBuffer buffer;
};

// Uniform random values in [lo, hi), reproducible from the seed.
void FillRandom(Array<float>& a, uint32_t seed, float lo = -1, float hi = 1);

}  // namespace tunefarm::codegen::testing
