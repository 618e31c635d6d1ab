#include "tuner/kernel_build.h"

#include "compiler/codegen/codegen.h"
#include "compiler/codegen/shared_object.h"
#include "common/sha256.h"
#include "common/strings.h"
#include "compiler/tir/layout_transform.h"
#include "compiler/tir/lower.h"
#include "deploy/tunefarm_abi.h"
#include "tuner/tuning_profile.h"

namespace tunefarm::tuner {
namespace {

v1::ArgRole ToWire(tir::ArgRole role) {
  switch (role) {
    case tir::ArgRole::kInput: return v1::ARG_ROLE_IN;
    case tir::ArgRole::kOutput: return v1::ARG_ROLE_OUT;
    case tir::ArgRole::kParam: return v1::ARG_ROLE_PARAM;
  }
  return v1::ARG_ROLE_UNSPECIFIED;
}

// The proto mirror of the metadata record codegen embeds (codegen/metadata.h).
v1::KernelMetadata Describe(const std::vector<tir::PrimFunc>& funcs, const codegen::Target& target) {
  v1::KernelMetadata m;
  m.set_abi_version(TUNEFARM_ABI_VERSION);
  m.set_target(target.ToString());
  m.set_artifact_kind(target.IsCuda() ? v1::ARTIFACT_KIND_PTX : v1::ARTIFACT_KIND_ELF_SO);
  for (const tir::PrimFunc& f : funcs) {
    v1::KernelEntry* entry = m.add_entries();
    entry->set_name(f.name);
    entry->set_workspace_bytes(f.workspace_bytes);
    for (int a = 0; a < f.num_args; ++a) {
      const tir::Buffer& b = f.buffers[a];
      v1::KernelArg* arg = entry->add_args();
      arg->set_name(b.name);
      arg->set_dtype(std::string(te::DTypeName(b.dtype)));
      for (int64_t d : b.shape) arg->add_shape(d);
      arg->set_role(ToWire(b.role));
      if (b.has_range) {
        arg->mutable_range()->set_lo(b.range_min);
        arg->mutable_range()->set_hi(b.range_max);
      }
      arg->set_prepared_by(b.prepared_by);
    }
  }
  return m;
}

// The entries that make the rewritten weights of `state`'s layout rewrites (<entry>_layout<k>),
// each named in the kernel argument it prepares.
absl::StatusOr<std::vector<tir::PrimFunc>> LayoutEntries(const schedule::State& state, tir::PrimFunc* kernel) {
  std::vector<tir::PrimFunc> entries;
  for (const tir::RewrittenParam& rp : tir::RewrittenParams(state)) {
    const std::string name = StrCat(kernel->name, "_layout", entries.size());
    auto f = tir::Lower(schedule::State(rp.transform), name);
    if (!f.ok()) return f.status();
    kernel->buffers[rp.arg].prepared_by = name;
    entries.push_back(std::move(*f));
  }
  return entries;
}

}  // namespace

std::string BatchEntry(size_t k) { return StrCat(kTuneEntry, "_", k); }

absl::StatusOr<KernelObject> CompileKernel(const schedule::State& state, const codegen::Target& target,
                                           const tir::PrimFunc* lowered, const std::string& entry) {
  absl::StatusOr<tir::PrimFunc> func = [&]() -> absl::StatusOr<tir::PrimFunc> {
    if (lowered != nullptr) return *lowered;
    StageTimer timer(TuningStage::kLower);
    return tir::Lower(state, entry);
  }();
  if (!func.ok()) return func.status();
  func->name = entry;
  auto layouts = LayoutEntries(state, &*func);
  if (!layouts.ok()) return layouts.status();
  KernelObject kernel;
  kernel.funcs = {std::move(*func)};
  for (tir::PrimFunc& f : *layouts) kernel.funcs.push_back(std::move(f));
  // PTX does not link: a GPU batch is generated as one module when it is linked.
  if (target.IsCuda()) {
    if (kernel.funcs.size() > 1) return absl::InvalidArgumentError("layout rewriting is not built for GPU targets");
    return kernel;
  }
  absl::StatusOr<std::string> object = [&] {
    StageTimer timer(TuningStage::kCodegen);
    return codegen::BuildObject(kernel.funcs, target, {}, codegen::AbiGlobals::kElsewhere);
  }();
  if (!object.ok()) return object.status();
  kernel.object = std::move(*object);
  return kernel;
}

absl::StatusOr<BuiltKernel> LinkKernels(std::span<const KernelObject* const> objects, const codegen::Target& target) {
  StageTimer timer(TuningStage::kLink);
  std::vector<tir::PrimFunc> entries;
  std::vector<std::string> inputs;
  for (const KernelObject* k : objects) {
    entries.insert(entries.end(), k->funcs.begin(), k->funcs.end());
    inputs.push_back(k->object);
  }
  absl::StatusOr<std::string> bytes = [&]() -> absl::StatusOr<std::string> {
    if (target.IsCuda()) {
      StageTimer codegen(TuningStage::kCodegen);
      return codegen::BuildKernelLibrary(entries, target);
    }
    absl::StatusOr<std::string> globals = codegen::BuildLibraryGlobalsObject(entries, target);
    if (!globals.ok()) return globals.status();
    inputs.push_back(std::move(*globals));
    return codegen::LinkSharedObject(inputs);
  }();
  if (!bytes.ok()) return bytes.status();
  BuiltKernel kernel;
  kernel.sha256 = Sha256Hex(*bytes);
  kernel.bytes = std::move(*bytes);
  kernel.metadata = Describe(entries, target);
  return kernel;
}

LinkedObjects LinkObjects(std::span<const KernelObject* const> objects, const codegen::Target& target) {
  LinkedObjects out;
  out.library_of.assign(objects.size(), nullptr);
  out.errors.assign(objects.size(), "");
  auto link = [&](size_t first, size_t count) {
    absl::StatusOr<BuiltKernel> library = LinkKernels(objects.subspan(first, count), target);
    if (!library.ok()) return library.status();
    out.libraries.push_back(std::make_unique<BuiltKernel>(std::move(*library)));
    for (size_t k = first; k < first + count; ++k) out.library_of[k] = out.libraries.back().get();
    return absl::OkStatus();
  };
  if (objects.empty() || link(0, objects.size()).ok()) return out;
  for (size_t k = 0; k < objects.size(); ++k)
    if (absl::Status s = link(k, 1); !s.ok()) out.errors[k] = std::string(s.message());
  return out;
}

absl::StatusOr<BuiltKernel> BuildKernel(const schedule::State& state, const codegen::Target& target,
                                        const tir::PrimFunc* lowered) {
  absl::StatusOr<KernelObject> object = CompileKernel(state, target, lowered, kTuneEntry);
  if (!object.ok()) return object.status();
  const KernelObject* objects[] = {&*object};
  return LinkKernels(objects, target);
}

}  // namespace tunefarm::tuner
