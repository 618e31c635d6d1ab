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
  m.set_artifact_kind(v1::ARTIFACT_KIND_ELF_SO);
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

// The entries that make the rewritten weights of `state`'s layout rewrites (tf_tune_layout<k>),
// each named in the kernel argument it prepares.
absl::StatusOr<std::vector<tir::PrimFunc>> LayoutEntries(const schedule::State& state, tir::PrimFunc* kernel) {
  std::vector<tir::PrimFunc> entries;
  for (const tir::RewrittenParam& rp : tir::RewrittenParams(state)) {
    const std::string name = StrCat(kTuneLayoutEntryPrefix, entries.size());
    auto f = tir::Lower(schedule::State(rp.transform), name);
    if (!f.ok()) return f.status();
    kernel->buffers[rp.arg].prepared_by = name;
    entries.push_back(std::move(*f));
  }
  return entries;
}

}  // namespace

absl::StatusOr<BuiltKernel> BuildKernel(const schedule::State& state, const codegen::Target& target,
                                        const tir::PrimFunc* lowered) {
  absl::StatusOr<tir::PrimFunc> func = [&]() -> absl::StatusOr<tir::PrimFunc> {
    if (lowered != nullptr) return *lowered;
    StageTimer timer(TuningStage::kLower);
    return tir::Lower(state, kTuneEntry);
  }();
  if (!func.ok()) return func.status();
  func->name = kTuneEntry;
  auto layouts = LayoutEntries(state, &*func);
  if (!layouts.ok()) return layouts.status();
  std::vector<tir::PrimFunc> funcs = {std::move(*func)};
  for (tir::PrimFunc& f : *layouts) funcs.push_back(std::move(f));
  absl::StatusOr<std::string> object = [&] {
    StageTimer timer(TuningStage::kCodegen);
    return codegen::BuildObject(funcs, target, {});
  }();
  if (!object.ok()) return object.status();
  absl::StatusOr<std::string> bytes = [&] {
    StageTimer timer(TuningStage::kLink);
    return codegen::LinkSharedObject(*object);
  }();
  if (!bytes.ok()) return bytes.status();
  BuiltKernel kernel;
  kernel.sha256 = Sha256Hex(*bytes);
  kernel.bytes = std::move(*bytes);
  kernel.metadata = Describe(funcs, target);
  return kernel;
}

}  // namespace tunefarm::tuner
