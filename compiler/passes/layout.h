// The NCHW[x]c layout pass (DESIGN.md "Graph passes"): the conv region of a graph runs on
// blocked activations [N, C/x, H, W, x] so a conv vectorizes over a block of output channels.
//
// Region: every 2-D Conv with param weights (groups 1 or depthwise) becomes ConvNCHWc with its
// weight packed at compile time to [K/y, C/x, R, S, x, y] (depthwise: [C/y, 1, R, S, 1, y]) and
// its bias to [K/y, 1, 1, y]. Ops reading blocked values follow when their NCHWc form is exact:
// unary elementwise ops (Relu, Clip, ...), Add/Sub/Mul/Div/Max/Min of blocked values and
// per-channel or scalar params (re-laid out as [C/x, 1, 1, x]), Max/Average/Global pools, and
// channel Concat when every part has the same block. Everything else (Flatten, Reshape, Gemm,
// graph outputs) reads NCHW through one LayoutTransform per value; a value whose spatial dims
// are all 1 (after a global pool) has NCHW's byte order already and becomes a Reshape (a view).
// A conv's NCHW input is converted once per value, except that an ungrouped conv reads an NCHW
// input of at most 4 channels (an image) as NCHW1c, a Reshape view. So conversions sit only
// where the region meets the rest of the graph, and not at a CNN's image input.
//
// With `winograd`, a 3x3 stride-1 ungrouped conv with at least `min_winograd_channels` input
// and output channels runs as Winograd F(m x m, 3 x 3) instead (compiler/ops/winograd.h): WinogradDataPack,
// WinogradBatchGemm with the weight transformed at compile time, and WinogradInverse with the
// bias; m = 4 when the output is at least 8x8, else 2.
//
// Blocks: a value with C channels uses ChannelBlock(C, block) (layout_pack.h), a divisor of C
// that is <= block (3 for an RGB input), so operands always agree. One exception: an ungrouped
// conv with at least 4 x block output channels whose best divisor fills at most half a vector
// (1000 classes: 8 of 16 lanes) computes ceil(K / block) whole blocks, the last padded with zero
// weights. Unary elementwise ops and pools follow such a value channel by channel, binary ops
// (not Div) lane by lane when every blocked operand has the same padding (per-channel params
// padded with zeros), and convs read it blocked when its padding lanes are sure to be finite
// (they went only through ops that keep finite values finite): an ungrouped conv with zero
// weights on them, a depthwise conv computing padding channels of its own. It leaves the region
// through a LayoutTransform that drops the padding, never as a view.
#pragma once

#include "absl/status/statusor.h"
#include "compiler/graph/graph.h"

namespace tunefarm::passes {

// block: the target's float vector lanes (8 AVX2, 16 AVX-512, 4 NEON); <= 1 returns g as is.
// A graph without a convertible Conv is returned unchanged. Unused NCHW weights are left for DCE.
// Where Winograd pays on a machine nobody has measured (build::MinWinogradChannels).
inline constexpr int kDefaultMinWinogradChannels = 64;

absl::StatusOr<graph::Graph> ConvertLayout(const graph::Graph& g, int block, bool winograd = false,
                                           int min_winograd_channels = kDefaultMinWinogradChannels);

}  // namespace tunefarm::passes
