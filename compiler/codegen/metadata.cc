#include "compiler/codegen/metadata.h"

#include <cstdio>

#include "common/strings.h"

namespace tunefarm::codegen {
namespace {

void AppendJsonString(std::string_view s, std::string* out) {
  out->push_back('"');
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out->push_back('\\');
      out->push_back(c);
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof(buf), "\\u%04x", static_cast<unsigned char>(c));
      out->append(buf);
    } else {
      out->push_back(c);
    }
  }
  out->push_back('"');
}

void AppendArg(const tir::Buffer& b, std::string* out) {
  out->append("{\"name\":");
  AppendJsonString(b.name, out);
  StrAppend(out, ",\"dtype\":\"", te::DTypeName(b.dtype), "\",\"shape\":[", StrJoin(b.shape, ","),
            "],\"role\":\"", tir::ArgRoleName(b.role), "\"");
  if (b.has_range) StrAppend(out, ",\"range\":[", b.range_min, ",", b.range_max, "]");
  if (!b.prepared_by.empty()) {
    out->append(",\"prepared_by\":");
    AppendJsonString(b.prepared_by, out);
  }
  out->push_back('}');
}

}  // namespace

std::string GpuKernelName(const std::string& entry, size_t i) { return StrCat(entry, "_k", i); }

std::string BuildMetadataJson(const std::vector<tir::PrimFunc>& funcs, const Target& target,
                              const std::vector<std::vector<tir::GpuLaunch>>* launches) {
  std::string out = "{\"format\":1,\"target\":";
  AppendJsonString(target.ToString(), &out);
  out.append(",\"entries\":[");
  for (size_t i = 0; i < funcs.size(); ++i) {
    const tir::PrimFunc& f = funcs[i];
    if (i) out.push_back(',');
    out.append("{\"name\":");
    AppendJsonString(f.name, &out);
    StrAppend(&out, ",\"workspace_bytes\":", f.workspace_bytes, ",\"args\":[");
    for (int a = 0; a < f.num_args; ++a) {
      if (a) out.push_back(',');
      AppendArg(f.buffers[a], &out);
    }
    out.push_back(']');
    if (launches != nullptr) {
      out.append(",\"launches\":[");
      for (size_t l = 0; l < (*launches)[i].size(); ++l) {
        const tir::GpuLaunch& launch = (*launches)[i][l];
        if (l) out.push_back(',');
        out.append("{\"kernel\":");
        AppendJsonString(GpuKernelName(f.name, l), &out);
        StrAppend(&out, ",\"grid\":[", StrJoin(launch.grid, ","), "],\"block\":[", StrJoin(launch.block, ","),
                  "],\"shared_bytes\":", launch.shared_bytes, "}");
      }
      out.push_back(']');
    }
    out.push_back('}');
  }
  out.append("]}");
  return out;
}

}  // namespace tunefarm::codegen
