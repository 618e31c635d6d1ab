#include "tuner/task_name.h"

#include <cctype>
#include <set>

#include "common/strings.h"

namespace tunefarm::tuner {
namespace {

std::string ShapeText(const std::vector<int64_t>& shape) {
  std::string out;
  for (size_t i = 0; i < shape.size(); ++i) StrAppend(&out, i ? "x" : "", shape[i]);
  return out.empty() ? "scalar" : out;
}

// Stage names are graph node names: ONNX's ("/layer1/layer1.0/conv1/Conv") or the passes'
// ("conv2d_nchwc_3", "T_relu_3"). The op is the last path part, without the suffixes that keep
// names unique.
std::string OpName(const std::string& tensor_name) {
  std::string name = tensor_name.substr(tensor_name.rfind('/') + 1);
  if (const size_t out = name.find("_output_"); out != std::string::npos) name = name.substr(0, out);
  if (name.rfind("T_", 0) == 0) name = name.substr(2);
  while (!name.empty() && (std::isdigit(static_cast<unsigned char>(name.back())) || name.back() == '_'))
    name.pop_back();
  return name.empty() ? tensor_name : name;
}

}  // namespace

std::string TaskName(const te::ComputeDag& dag) {
  // The main stage: the first with a reduction (the costly part), else the first output.
  int main = -1;
  for (int id : dag.stages())
    if (dag.analysis(id).has_reduction) {
      main = id;
      break;
    }
  if (main < 0) main = dag.outputs().empty() ? dag.stages().front() : dag.outputs().front();
  std::string name = StrCat(OpName(dag.tensor(main).name), "(");
  bool first = true;
  for (const auto& [tensor, accesses] : dag.analysis(main).reads) {
    if (!dag.tensor(tensor).is_placeholder && dag.tensor(tensor).reduce != te::ReduceKind::kNone) continue;
    StrAppend(&name, first ? "" : ", ", ShapeText(dag.tensor(tensor).shape));
    first = false;
  }
  StrAppend(&name, ")");
  std::set<std::string> fused;
  for (int id : dag.stages()) {
    if (id <= main) continue;
    std::string op = OpName(dag.tensor(id).name);
    if (fused.insert(op).second) StrAppend(&name, " +", op);
  }
  return name;
}

}  // namespace tunefarm::tuner
