// Rewriting helper for passes. graph::Graph is append-only, so a pass builds a new graph while
// walking the old one in order, keeping a map from old values to new values. Nodes a pass does
// not touch are copied with Copy(); a pass replaces a node by mapping its outputs (Map) to
// values it built itself. Finish() adds the old graph's outputs, with their names, mapped.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/graph/graph.h"

namespace tunefarm::passes {

class GraphRewriter {
 public:
  explicit GraphRewriter(const graph::Graph& src) : src_(src) {}

  const graph::Graph& src() const { return src_; }
  const graph::Graph& dst() const { return dst_; }

  // Copies old node `id` (an input, a param with its data, or an operator with its inputs
  // mapped) under its old name.
  absl::Status Copy(int id);
  // A new param; `name` is made unique.
  absl::StatusOr<graph::NodeEntry> AddParam(const std::string& name, graph::HostTensor value);
  // A new operator node on new values; `name` is made unique.
  absl::StatusOr<graph::NodeEntry> AddNode(const std::string& op, const std::string& name,
                                           std::vector<graph::NodeEntry> inputs, graph::Attrs attrs);

  // The new value for old value `e`; TF_CHECKs that it was mapped.
  graph::NodeEntry Lookup(graph::NodeEntry e) const;
  bool IsMapped(graph::NodeEntry e) const { return map_.count(e) != 0; }
  void Map(graph::NodeEntry old_value, graph::NodeEntry new_value) { map_[old_value] = new_value; }
  // The old node's inputs as new values.
  std::vector<graph::NodeEntry> LookupInputs(int id) const;
  // The param data behind new value `e`, or nullptr when it is not a param.
  const graph::HostTensor* ParamData(graph::NodeEntry e) const;

  absl::StatusOr<graph::Graph> Finish();

 private:
  const graph::Graph& src_;
  graph::Graph dst_;
  std::map<graph::NodeEntry, graph::NodeEntry> map_;
};

// How many operator nodes read each value (a node reading a value twice counts once), and
// whether each value is a graph output. Shared by the passes that must not fuse or fold away
// a value someone else still reads.
struct ValueUses {
  std::map<graph::NodeEntry, std::vector<int>> consumers;
  std::map<graph::NodeEntry, bool> is_output;
  int NumConsumers(graph::NodeEntry e) const;
  bool IsOutput(graph::NodeEntry e) const { return is_output.count(e) != 0; }
};
ValueUses ComputeUses(const graph::Graph& g);

// "Conv=20 Relu=17 ..." for logs.
std::string OpCountsString(const graph::Graph& g);

}  // namespace tunefarm::passes
