#include "compiler/codegen/embedded_blob.h"

#include "common/strings.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Value.h"

namespace tunefarm::codegen {
namespace {

bool IsCIdentifier(std::string_view name) {
  if (name.empty() || (name[0] >= '0' && name[0] <= '9')) return false;
  for (char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    if (!ok) return false;
  }
  return true;
}

absl::Status CheckBlob(const EmbeddedBlob& blob, const llvm::Module& module) {
  const std::string size_symbol = blob.symbol + "_size";
  if (!IsCIdentifier(blob.symbol)) {
    return absl::InvalidArgumentError(StrCat("embedded blob symbol \"", blob.symbol, "\" is not a C identifier"));
  }
  for (const std::string& name : {blob.symbol, size_symbol}) {
    if (module.getNamedValue(name) != nullptr) {
      return absl::InvalidArgumentError(
          StrCat("embedded blob symbol \"", name, "\" is already defined in the kernel library"));
    }
  }
  const uint64_t max_alignment = llvm::Value::MaximumAlignment;
  if (blob.alignment <= 0 || (blob.alignment & (blob.alignment - 1)) != 0 ||
      static_cast<uint64_t>(blob.alignment) > max_alignment) {
    return absl::InvalidArgumentError(
        StrCat("embedded blob \"", blob.symbol, "\": alignment ", blob.alignment, " is not a power of two"));
  }
  if (blob.section.find('\0') != std::string::npos) {
    return absl::InvalidArgumentError(StrCat("embedded blob \"", blob.symbol, "\": section name holds a NUL"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status AddEmbeddedBlobs(const std::vector<EmbeddedBlob>& blobs, llvm::Module& module) {
  llvm::LLVMContext& ctx = module.getContext();
  auto* i8 = llvm::Type::getInt8Ty(ctx);
  auto* i64 = llvm::Type::getInt64Ty(ctx);
  for (const EmbeddedBlob& blob : blobs) {
    if (absl::Status s = CheckBlob(blob, module); !s.ok()) return s;
    // getRaw takes the bytes as they are: one constant, no per-element work.
    llvm::Constant* data =
        llvm::ConstantDataArray::getRaw(llvm::StringRef(blob.bytes.data(), blob.bytes.size()), blob.bytes.size(), i8);
    auto* global = new llvm::GlobalVariable(module, data->getType(), /*isConstant=*/true,
                                            llvm::GlobalValue::ExternalLinkage, data, blob.symbol);
    global->setAlignment(llvm::Align(static_cast<uint64_t>(blob.alignment)));
    if (!blob.section.empty()) global->setSection(blob.section);
    auto* size = new llvm::GlobalVariable(module, i64, /*isConstant=*/true, llvm::GlobalValue::ExternalLinkage,
                                          llvm::ConstantInt::get(i64, blob.bytes.size()), blob.symbol + "_size");
    size->setAlignment(llvm::Align(8));
  }
  return absl::OkStatus();
}

}  // namespace tunefarm::codegen
