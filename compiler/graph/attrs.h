// Typed node attributes: int, float, string, their lists, and tensors.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "compiler/graph/host_tensor.h"

namespace tunefarm::graph {

enum class AttrKind { kInt, kFloat, kString, kInts, kFloats, kStrings, kTensor };
std::string_view AttrKindName(AttrKind kind);

// The alternatives are in AttrKind order.
using AttrValue = std::variant<int64_t, double, std::string, std::vector<int64_t>, std::vector<double>,
                               std::vector<std::string>, HostTensor>;
inline AttrKind KindOf(const AttrValue& v) { return static_cast<AttrKind>(v.index()); }
std::string AttrValueToString(const AttrValue& v);

// Attributes keyed by name; printed in name order. The registry fills in defaults when a node
// is added to a graph, so passes read every declared attribute without a fallback.
class Attrs {
 public:
  void Set(const std::string& name, AttrValue value) { values_[name] = std::move(value); }
  bool Has(const std::string& name) const { return values_.count(name) != 0; }
  void Erase(const std::string& name) { values_.erase(name); }
  const AttrValue* Find(const std::string& name) const;

  // Typed reads; `fallback` when absent or of another kind.
  int64_t GetInt(const std::string& name, int64_t fallback = 0) const;
  double GetFloat(const std::string& name, double fallback = 0) const;
  std::string GetString(const std::string& name, const std::string& fallback = "") const;
  std::vector<int64_t> GetInts(const std::string& name, const std::vector<int64_t>& fallback = {}) const;
  std::vector<double> GetFloats(const std::string& name) const;
  std::vector<std::string> GetStrings(const std::string& name) const;
  const HostTensor* GetTensor(const std::string& name) const;

  const std::map<std::string, AttrValue>& values() const { return values_; }
  std::string ToString() const;  // "axis=1, pads=[0,0,1,1]"

 private:
  std::map<std::string, AttrValue> values_;
};

}  // namespace tunefarm::graph
