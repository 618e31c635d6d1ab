#include "compiler/passes/layout.h"

#include <map>
#include <set>

#include "common/log.h"
#include "common/strings.h"
#include "compiler/graph/op_registry.h"
#include "compiler/ops/winograd.h"
#include "compiler/passes/graph_rewriter.h"
#include "compiler/passes/layout_pack.h"

namespace tunefarm::passes {
namespace {

using graph::HostTensor;
using graph::Node;
using graph::NodeEntry;

const std::set<std::string> kBinary = {"Add", "Sub", "Mul", "Div", "Max", "Min"};
// Ops that keep finite values finite (Div can turn a zero padding lane into inf, Log into -inf):
// a conv may read a padded value only when its padding lanes are finite, since they meet zero
// weights and inf * 0 is NaN.
const std::set<std::string> kKeepsFinite = {"Relu", "Clip", "LeakyRelu", "Sigmoid", "Tanh", "HardSigmoid", "HardSwish",
                                            "Neg", "Abs", "Identity", "Elu", "Erf", "Add", "Sub", "Mul", "Max", "Min"};
const std::map<std::string, std::string> kPools = {{"MaxPool", "MaxPoolNCHWc"},
                                                    {"AveragePool", "AveragePoolNCHWc"},
                                                    {"GlobalAveragePool", "GlobalAveragePoolNCHWc"},
                                                    {"GlobalMaxPool", "GlobalMaxPoolNCHWc"}};

bool IsParam(const graph::Graph& g, NodeEntry e) { return g.node(e.node).IsParam(); }

// How a param operand of a blocked binary op is re-laid out.
enum class ParamForm { kNone, kScalar, kPerChannel };

// A param that broadcasts against [N, C, H, W] as a scalar or along C only.
ParamForm ClassifyParam(const graph::TensorType& t, int64_t channels) {
  if (t.shape.size() > 4) return ParamForm::kNone;
  std::vector<int64_t> s(4 - t.shape.size(), 1);
  s.insert(s.end(), t.shape.begin(), t.shape.end());
  if (s[0] != 1 || s[2] != 1 || s[3] != 1) return ParamForm::kNone;
  if (s[1] == 1) return ParamForm::kScalar;
  return s[1] == channels ? ParamForm::kPerChannel : ParamForm::kNone;
}

class LayoutRewrite {
 public:
  LayoutRewrite(const graph::Graph& g, int64_t block, bool winograd, int64_t min_winograd_channels)
      : g_(g), winograd_(winograd), min_winograd_channels_(min_winograd_channels), block_(block), rw_(g) {}

  // Decides, in order, which values are blocked and by how much (block_of_).
  int Plan() {
    int convs = 0;
    for (int id = 0; id < static_cast<int>(g_.nodes().size()); ++id) {
      const Node& n = g_.node(id);
      if (n.IsInput() || n.IsParam() || n.outputs.size() != 1) continue;
      if (n.op == "Conv" && ConvertibleConv(n)) {
        const int64_t k = n.outputs[0].shape[1];
        block_of_[{id, 0}] = ChannelBlock(k, block_);
        if (n.attrs.GetInt("group") > 1 && padded_.count(n.inputs[0])) {
          block_of_[{id, 0}] = BlockOf(n.inputs[0]);
          padded_[{id, 0}] = padded_.at(n.inputs[0]);
          finite_padding_.insert({id, 0});
        } else if (PadsOutputChannels(n)) {
          block_of_[{id, 0}] = block_;
          padded_[{id, 0}] = PaddedChannels(k);
          finite_padding_.insert({id, 0});  // zero weights and bias: the padding lanes are 0
        }
        ++convs;
      } else if (int64_t b = FollowBlock(n); b > 0) {
        block_of_[{id, 0}] = b;
        for (NodeEntry e : n.inputs) {
          if (!padded_.count(e)) continue;
          padded_[{id, 0}] = padded_.at(e);
          bool finite = kPools.count(n.op) || kKeepsFinite.count(n.op);
          for (NodeEntry in : n.inputs) finite &= !padded_.count(in) || finite_padding_.count(in);
          if (finite) finite_padding_.insert({id, 0});
          break;
        }
      }
    }
    return convs;
  }

  absl::StatusOr<graph::Graph> Rewrite() {
    for (int id = 0; id < static_cast<int>(g_.nodes().size()); ++id) {
      const Node& n = g_.node(id);
      if (block_of_.count({id, 0})) {
        if (absl::Status s = EmitBlocked(id); !s.ok()) return s;
        continue;
      }
      if (ReadsBytesOnly(n)) {
        // Same bytes in both layouts: the Flatten/Reshape reads the blocked value directly.
        auto out = rw_.AddNode(n.op, n.name, {blocked_.at(n.inputs[0])}, n.attrs);
        if (!out.ok()) return out.status();
        rw_.Map({id, 0}, *out);
        ++views_out_;
        continue;
      }
      for (NodeEntry e : n.inputs)
        if (absl::Status s = EnsurePlain(e); !s.ok()) return s;
      if (absl::Status s = rw_.Copy(id); !s.ok()) return s;
    }
    for (NodeEntry e : g_.outputs())
      if (absl::Status s = EnsurePlain(e); !s.ok()) return s;
    TF_LOG(INFO, "passes") << "layout: " << block_of_.size() << " values in NCHW[x]c (block " << block_ << "), "
                           << conversions_in_ << " conversions in, " << conversions_out_ << " out, " << views_out_
                           << " out as views";
    return rw_.Finish();
  }

 private:
  int64_t BlockOf(NodeEntry e) const {
    auto it = block_of_.find(e);
    return it == block_of_.end() ? 0 : it->second;
  }

  bool ConvertibleConv(const Node& n) const {
    const auto& x = g_.type(n.inputs[0]);
    const auto& w = g_.type(n.inputs[1]).shape;
    if (x.shape.size() != 4 || x.dtype != te::DType::kFloat32) return false;
    for (size_t i = 1; i < n.inputs.size(); ++i)
      if (!IsParam(g_, n.inputs[i])) return false;
    int64_t group = n.attrs.GetInt("group"), c = x.shape[1], k = w[0];
    // Depthwise: one input and one output channel per group.
    const bool depthwise = group == c && k == c && w[1] == 1;
    // A padded input is read blocked when its padding lanes are finite: an ungrouped conv meets
    // them with zero weights, a depthwise one computes padding channels of its own (zero
    // weights and bias). Otherwise the conv reads it in NCHW.
    if (padded_.count(n.inputs[0])) return (group == 1 || depthwise) && finite_padding_.count(n.inputs[0]);
    return group == 1 || depthwise;
  }

  // A conv whose output channels have no divisor that fills a vector (1000 classes: blocks of
  // 8 in 16 lanes ran squeezenet's classifier at half the FMA rate) computes whole vectors of
  // channels, the last one padded with zero weights, when that pads at most a quarter more.
  // Not 24 -> 32 (a third more): mobilenet_v2's 144 -> 24 projection tuned 149 -> 121 us that
  // way, but the 24 -> 144 expansions reading 32 channels 81 -> 112 us each (2-core Zen 5, 2
  // threads, docs/passes.md).
  bool PadsOutputChannels(const Node& n) const {
    const int64_t k = n.outputs[0].shape[1];
    return n.attrs.GetInt("group") == 1 && WinogradTile(n) == 0 && k >= 4 * block_ &&
           2 * ChannelBlock(k, block_) <= block_;
  }

  int64_t PaddedChannels(int64_t channels) const { return (channels + block_ - 1) / block_ * block_; }

  // The block a non-conv node's output takes when it can run blocked, else 0.
  int64_t FollowBlock(const Node& n) const {
    if (n.inputs.empty()) return 0;
    const graph::TensorType& out = n.outputs[0];
    if (out.shape.size() != 4) return 0;
    const int64_t c = out.shape[1], b = ChannelBlock(c, block_);
    const graph::OpSchema* schema = graph::OpRegistry::Global().Find(n.op);
    if (schema == nullptr) return 0;
    if (kPools.count(n.op) || (schema->pattern == graph::OpPattern::kElementwise && n.inputs.size() == 1)) {
      const auto& in = g_.type(n.inputs[0]);
      if (BlockOf(n.inputs[0]) == 0 || in.shape.size() != 4 || in.shape[1] != c) return 0;
      // Channel by channel, so the padding channels (whatever they hold) stay apart until a
      // conversion to NCHW drops them.
      return padded_.count(n.inputs[0]) ? BlockOf(n.inputs[0]) : b;
    }
    if (kBinary.count(n.op)) {
      bool any_blocked = false;
      int64_t padded = -1;  // every blocked operand is padded to this count, or none is (0)
      for (NodeEntry e : n.inputs) {
        if (BlockOf(e) > 0) {
          if (g_.type(e).shape.size() != 4 || g_.type(e).shape[1] != c) return 0;
          const int64_t p = padded_.count(e) ? padded_.at(e) : 0;
          if (padded >= 0 && p != padded) return 0;
          padded = p;
          any_blocked = true;
        } else if (!IsParam(g_, e) || ClassifyParam(g_.type(e), c) == ParamForm::kNone) {
          return 0;
        }
      }
      if (!any_blocked) return 0;
      // Padded operands add, multiply... lane by lane (per-channel params padded with zeros);
      // a division would put inf in the padding.
      if (padded > 0) return n.op == "Div" ? 0 : block_;
      return b;
    }
    for (NodeEntry e : n.inputs)
      if (padded_.count(e)) return 0;
    if (n.op == "Concat") {
      int64_t axis = n.attrs.GetInt("axis");
      if (axis != 1 && axis != -3) return 0;
      // Blocks concatenate along C/x only when every part is in blocks of the result's x.
      for (NodeEntry e : n.inputs)
        if (BlockOf(e) != b) return 0;
      return b;
    }
    return 0;
  }

  // A Flatten/Reshape of a blocked [N, C/x, 1, 1, x] value whose result only depends on the
  // byte order, which both layouts share (Flatten axis 0/1; Reshape copying no dim by a 0).
  bool ReadsBytesOnly(const Node& n) const {
    if (n.inputs.size() != 1 || BlockOf(n.inputs[0]) == 0 || padded_.count(n.inputs[0])) return false;
    const auto& s = g_.type(n.inputs[0]).shape;
    if (s[2] != 1 || s[3] != 1) return false;
    if (n.op == "Flatten") {
      int64_t axis = n.attrs.GetInt("axis");
      return axis == 0 || axis == 1 || axis == -4 || axis == -3;
    }
    if (n.op != "Reshape") return false;
    std::vector<int64_t> target = n.attrs.GetInts("shape");
    for (size_t i = 1; i < target.size(); ++i)
      if (target[i] == 0 && n.attrs.GetInt("allowzero") == 0) return false;
    return true;
  }

  // The blocked new value of old value `e` (a conv's data input may still be NCHW). NCHW is
  // NCHW1c byte for byte, so block 1 is a view; any other block is a LayoutTransform.
  absl::StatusOr<NodeEntry> Blocked(NodeEntry e, int64_t block) {
    if (BlockOf(e) > 0) return blocked_.at(e);
    if (auto it = to_blocked_.find({e, block}); it != to_blocked_.end()) return it->second;
    const Node& src = g_.node(e.node);
    graph::Attrs attrs;
    absl::StatusOr<NodeEntry> t;
    if (block == 1) {
      std::vector<int64_t> shape = g_.type(e).shape;
      shape.push_back(1);
      attrs.Set("shape", shape);
      attrs.Set("allowzero", int64_t{0});
      t = rw_.AddNode("Reshape", StrCat(src.name, ".to_nchw1c"), {rw_.Lookup(e)}, attrs);
    } else {
      attrs.Set("src_layout", std::string("NCHW"));
      attrs.Set("dst_layout", std::string("NCHWc"));
      attrs.Set("block", block);
      t = rw_.AddNode("LayoutTransform", StrCat(src.name, ".to_nchwc"), {rw_.Lookup(e)}, attrs);
      ++conversions_in_;
    }
    if (!t.ok()) return t.status();
    TF_LOG(DEBUG, "passes") << "layout: '" << src.name << "' converted to NCHW" << block << "c";
    to_blocked_[{e, block}] = *t;
    return *t;
  }

  // The input-channel block of conv `n`'s data. An NCHW input with a few channels (an image's
  // 3) is read as NCHW1c, a view, rather than converted: its blocks would fill no vector
  // anyway (the conv broadcasts input channels one by one), and the conversion, a pass over
  // the whole input, took 115-121 us in model on untuned squeezenet / mobilenet_v2 (2 threads).
  int64_t DataBlock(const Node& n) const {
    if (padded_.count(n.inputs[0])) return BlockOf(n.inputs[0]);
    const int64_t c = g_.type(n.inputs[0]).shape[1];
    if (n.attrs.GetInt("group") == 1 && BlockOf(n.inputs[0]) == 0 && c <= kMaxViewedInputChannels) return 1;
    return ChannelBlock(c, block_);
  }

  // Maps old blocked value `e` to an NCHW new value (once), for readers outside the region.
  absl::Status EnsurePlain(NodeEntry e) {
    if (BlockOf(e) == 0 || rw_.IsMapped(e)) return absl::OkStatus();
    const graph::TensorType& t = g_.type(e);
    const Node& src = g_.node(e.node);
    absl::StatusOr<NodeEntry> plain;
    if (t.shape[2] == 1 && t.shape[3] == 1 && !padded_.count(e)) {
      // [N, C/x, 1, 1, x] and [N, C, 1, 1] have the same byte order: a view, no kernel.
      graph::Attrs attrs;
      attrs.Set("shape", t.shape);
      attrs.Set("allowzero", int64_t{0});
      plain = rw_.AddNode("Reshape", StrCat(src.name, ".to_nchw"), {blocked_.at(e)}, attrs);
      ++views_out_;
    } else {
      graph::Attrs attrs;
      attrs.Set("src_layout", std::string("NCHWc"));
      attrs.Set("dst_layout", std::string("NCHW"));
      attrs.Set("block", BlockOf(e));
      attrs.Set("channels", t.shape[1]);
      plain = rw_.AddNode("LayoutTransform", StrCat(src.name, ".to_nchw"), {blocked_.at(e)}, attrs);
      ++conversions_out_;
    }
    if (!plain.ok()) return plain.status();
    TF_LOG(DEBUG, "passes") << "layout: '" << src.name << "' converted back to NCHW";
    rw_.Map(e, *plain);
    return absl::OkStatus();
  }

  absl::StatusOr<NodeEntry> PackedParam(NodeEntry e, HostTensor value, const char* suffix) {
    return rw_.AddParam(StrCat(g_.node(e.node).name, suffix), std::move(value));
  }

  absl::Status EmitBlocked(int id) {
    const Node& n = g_.node(id);
    const int64_t b = BlockOf({id, 0});
    std::vector<NodeEntry> inputs;
    std::string op = n.op;
    graph::Attrs attrs = n.attrs;
    if (n.op == "Conv" && WinogradTile(n) > 0) return EmitWinograd(id, WinogradTile(n));
    if (n.op == "Conv") {
      const int64_t k = padded_.count({id, 0}) ? padded_.at({id, 0}) : n.outputs[0].shape[1];
      HostTensor w = PadChannels(g_.params().at(g_.node(n.inputs[1].node).name), k);
      if (auto it = padded_.find(n.inputs[0]); it != padded_.end()) {
        if (n.attrs.GetInt("group") == 1)
          w = PadInputChannels(w, it->second);
        else
          attrs.Set("group", k);  // depthwise over the padding channels too
      }
      const int64_t x = DataBlock(n);
      const int64_t xi = n.attrs.GetInt("group") == 1 ? x : 1;
      auto data = Blocked(n.inputs[0], x);
      if (!data.ok()) return data.status();
      auto weight = PackedParam(n.inputs[1], PackConvWeight(w, xi, b), ".nchwc");
      if (!weight.ok()) return weight.status();
      inputs = {*data, *weight};
      if (n.inputs.size() == 3) {
        const HostTensor bias = PadChannels(g_.params().at(g_.node(n.inputs[2].node).name), k);
        auto packed = PackedParam(n.inputs[2], BlockPerChannel(bias, k, b), ".nchwc");
        if (!packed.ok()) return packed.status();
        inputs.push_back(*packed);
      }
      op = "ConvNCHWc";
    } else {
      for (NodeEntry e : n.inputs) {
        if (BlockOf(e) > 0) {
          inputs.push_back(blocked_.at(e));
          continue;
        }
        // A scalar or per-channel param of a binary op (FollowBlock checked the form).
        const int64_t channels = n.outputs[0].shape[1];
        if (ClassifyParam(g_.type(e), channels) == ParamForm::kScalar) {
          inputs.push_back(rw_.Lookup(e));
          continue;
        }
        HostTensor p = g_.params().at(g_.node(e.node).name);
        p.shape = {channels};
        const int64_t physical = padded_.count({id, 0}) ? padded_.at({id, 0}) : channels;
        auto packed = PackedParam(e, BlockPerChannel(PadChannels(p, physical), physical, b), ".nchwc");
        if (!packed.ok()) return packed.status();
        inputs.push_back(*packed);
      }
      if (auto it = kPools.find(n.op); it != kPools.end()) op = it->second;
      if (n.op == "Concat") attrs.Set("axis", int64_t{1});
    }
    auto out = rw_.AddNode(op, n.name, inputs, attrs);
    if (!out.ok()) return out.status();
    blocked_[{id, 0}] = *out;
    TF_LOG(DEBUG, "passes") << "layout: " << n.op << " '" << n.name << "' -> " << op << " "
                            << rw_.dst().type(*out).ToString();
    return absl::OkStatus();
  }

  // The Winograd tile size for a conv that runs as Winograd, else 0: a 3x3 stride-1 ungrouped
  // float32 conv with enough channels that the batched GEMM is the bulk of the work (with few
  // channels the transforms dominate). F(4x4) where the output has a few whole tiles of 4.
  int WinogradTile(const Node& n) const {
    if (!winograd_ || padded_.count(n.inputs[0])) return 0;
    const auto& w = g_.type(n.inputs[1]).shape;
    std::vector<int64_t> strides = n.attrs.GetInts("strides"), dilations = n.attrs.GetInts("dilations");
    if (strides.empty()) strides = {1, 1};
    if (dilations.empty()) dilations = {1, 1};
    if (strides.size() != 2 || dilations.size() != 2) return 0;
    if (!ops::WinogradApplies(w[2], w[3], {strides[0], strides[1]}, {dilations[0], dilations[1]},
                              n.attrs.GetInt("group")))
      return 0;
    if (w[0] < min_winograd_channels_ || w[1] < min_winograd_channels_) return 0;
    const auto& out = n.outputs[0].shape;
    return out[2] >= 8 && out[3] >= 8 ? 4 : 2;
  }

  absl::Status EmitWinograd(int id, int tile) {
    const Node& n = g_.node(id);
    const int64_t y = BlockOf({id, 0});
    const HostTensor& w = g_.params().at(g_.node(n.inputs[1].node).name);
    const int64_t x = ChannelBlock(w.shape[1], block_);
    auto data = Blocked(n.inputs[0], x);
    if (!data.ok()) return data.status();
    auto weight = PackedParam(n.inputs[1], WinogradWeight(w, tile, x, y), tile == 2 ? ".winograd2" : ".winograd4");
    if (!weight.ok()) return weight.status();
    graph::Attrs pack_attrs;
    pack_attrs.Set("tile", int64_t{tile});
    std::vector<int64_t> pads = n.attrs.GetInts("pads");
    pack_attrs.Set("pads", pads.empty() ? std::vector<int64_t>{0, 0, 0, 0} : pads);
    auto packed = rw_.AddNode("WinogradDataPack", StrCat(n.name, ".data_pack"), {*data}, pack_attrs);
    if (!packed.ok()) return packed.status();
    auto product = rw_.AddNode("WinogradBatchGemm", StrCat(n.name, ".bgemm"), {*packed, *weight}, graph::Attrs{});
    if (!product.ok()) return product.status();
    std::vector<NodeEntry> inputs = {*product};
    if (n.inputs.size() == 3) {
      const HostTensor& bias = g_.params().at(g_.node(n.inputs[2].node).name);
      auto blocked_bias = PackedParam(n.inputs[2], BlockPerChannel(bias, w.shape[0], y), ".nchwc");
      if (!blocked_bias.ok()) return blocked_bias.status();
      inputs.push_back(*blocked_bias);
    }
    const auto& out = n.outputs[0].shape;
    graph::Attrs attrs;
    attrs.Set("tile", int64_t{tile});
    attrs.Set("batch", out[0]);
    attrs.Set("output_height", out[2]);
    attrs.Set("output_width", out[3]);
    auto result = rw_.AddNode("WinogradInverse", n.name, inputs, attrs);
    if (!result.ok()) return result.status();
    blocked_[{id, 0}] = *result;
    TF_LOG(DEBUG, "passes") << "layout: Conv '" << n.name << "' -> Winograd F(" << tile << "x" << tile << ", 3x3)";
    return absl::OkStatus();
  }

  static constexpr int64_t kMaxViewedInputChannels = 4;

  const graph::Graph& g_;
  const bool winograd_;
  const int64_t min_winograd_channels_;
  const int64_t block_;
  GraphRewriter rw_;
  std::map<NodeEntry, int64_t> block_of_;        // old value -> its block (blocked values only)
  std::map<NodeEntry, int64_t> padded_;          // old value -> its channels with the padding
  std::set<NodeEntry> finite_padding_;           // padded old values whose padding lanes are finite
  std::map<NodeEntry, NodeEntry> blocked_;       // old blocked value -> new blocked value
  std::map<std::pair<NodeEntry, int64_t>, NodeEntry> to_blocked_;  // (old NCHW value, block) -> its view or conversion in
  int conversions_in_ = 0, conversions_out_ = 0, views_out_ = 0;
};

}  // namespace

absl::StatusOr<graph::Graph> ConvertLayout(const graph::Graph& g, int block, bool winograd,
                                           int min_winograd_channels) {
  if (block <= 1) return g;
  LayoutRewrite rewrite(g, block, winograd, min_winograd_channels);
  if (rewrite.Plan() == 0) {
    TF_LOG(INFO, "passes") << "layout: no convertible Conv, graph left in NCHW";
    return g;
  }
  return rewrite.Rewrite();
}

}  // namespace tunefarm::passes
