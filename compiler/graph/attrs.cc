#include "compiler/graph/attrs.h"

#include <cstdio>

#include "common/strings.h"

namespace tunefarm::graph {

std::string_view AttrKindName(AttrKind kind) {
  switch (kind) {
    case AttrKind::kInt: return "int";
    case AttrKind::kFloat: return "float";
    case AttrKind::kString: return "string";
    case AttrKind::kInts: return "ints";
    case AttrKind::kFloats: return "floats";
    case AttrKind::kStrings: return "strings";
    case AttrKind::kTensor: return "tensor";
  }
  return "?";
}

namespace {
std::string FloatText(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}
}  // namespace

std::string AttrValueToString(const AttrValue& v) {
  switch (KindOf(v)) {
    case AttrKind::kInt: return std::to_string(std::get<int64_t>(v));
    case AttrKind::kFloat: return FloatText(std::get<double>(v));
    case AttrKind::kString: return StrCat("\"", std::get<std::string>(v), "\"");
    case AttrKind::kInts: return StrCat("[", StrJoin(std::get<std::vector<int64_t>>(v), ","), "]");
    case AttrKind::kFloats: {
      std::vector<std::string> parts;
      for (double d : std::get<std::vector<double>>(v)) parts.push_back(FloatText(d));
      return StrCat("[", StrJoin(parts, ","), "]");
    }
    case AttrKind::kStrings: return StrCat("[", StrJoin(std::get<std::vector<std::string>>(v), ","), "]");
    case AttrKind::kTensor: return std::get<HostTensor>(v).ToString();
  }
  return "?";
}

const AttrValue* Attrs::Find(const std::string& name) const {
  auto it = values_.find(name);
  return it == values_.end() ? nullptr : &it->second;
}

int64_t Attrs::GetInt(const std::string& name, int64_t fallback) const {
  const AttrValue* v = Find(name);
  return v && KindOf(*v) == AttrKind::kInt ? std::get<int64_t>(*v) : fallback;
}
double Attrs::GetFloat(const std::string& name, double fallback) const {
  const AttrValue* v = Find(name);
  return v && KindOf(*v) == AttrKind::kFloat ? std::get<double>(*v) : fallback;
}
std::string Attrs::GetString(const std::string& name, const std::string& fallback) const {
  const AttrValue* v = Find(name);
  return v && KindOf(*v) == AttrKind::kString ? std::get<std::string>(*v) : fallback;
}
std::vector<int64_t> Attrs::GetInts(const std::string& name, const std::vector<int64_t>& fallback) const {
  const AttrValue* v = Find(name);
  return v && KindOf(*v) == AttrKind::kInts ? std::get<std::vector<int64_t>>(*v) : fallback;
}
std::vector<double> Attrs::GetFloats(const std::string& name) const {
  const AttrValue* v = Find(name);
  return v && KindOf(*v) == AttrKind::kFloats ? std::get<std::vector<double>>(*v) : std::vector<double>{};
}
std::vector<std::string> Attrs::GetStrings(const std::string& name) const {
  const AttrValue* v = Find(name);
  return v && KindOf(*v) == AttrKind::kStrings ? std::get<std::vector<std::string>>(*v) : std::vector<std::string>{};
}
const HostTensor* Attrs::GetTensor(const std::string& name) const {
  const AttrValue* v = Find(name);
  return v && KindOf(*v) == AttrKind::kTensor ? &std::get<HostTensor>(*v) : nullptr;
}

std::string Attrs::ToString() const {
  std::vector<std::string> parts;
  for (const auto& [name, value] : values_) parts.push_back(StrCat(name, "=", AttrValueToString(value)));
  return StrJoin(parts, ", ");
}

}  // namespace tunefarm::graph
