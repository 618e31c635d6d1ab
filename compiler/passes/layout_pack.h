// Compile-time re-layout of the params the NCHW[x]c pass feeds to blocked ops, so no weight is
// transformed at run time (DESIGN.md "Graph passes").
#pragma once

#include <cstdint>

#include "compiler/graph/host_tensor.h"

namespace tunefarm::passes {

// The block of a value with `channels` channels: a divisor of it <= block, so values that meet
// in one op (Add, Concat) agree without padding. The largest power-of-two divisor when it is at
// least half the largest divisor (1000 -> 8, 24 -> 8), else the largest (3 -> 3, 12 -> 12).
int64_t ChannelBlock(int64_t channels, int64_t block);

// Conv weight [K, Cg, R, S] -> [K/y, Cg/xi, R, S, xi, y] (xi divides Cg, y divides K).
graph::HostTensor PackConvWeight(const graph::HostTensor& w, int64_t xi, int64_t y);

// Conv weight [K, C, 3, 3] float32 -> the Winograd F(m x m, 3 x 3) transform
// [m+2, m+2, K/y, C/x, x, y] (compiler/ops/winograd.h).
graph::HostTensor WinogradWeight(const graph::HostTensor& w, int m, int64_t x, int64_t y);

// `t` (conv weights [K, ...] or bias [K]) with zeros appended along axis 0 up to `channels`.
graph::HostTensor PadChannels(const graph::HostTensor& t, int64_t channels);

// Conv weights [K, C, R, S] with zero input channels appended up to `channels` (a conv reading a
// padded value: the padding lanes meet zero weights).
graph::HostTensor PadInputChannels(const graph::HostTensor& w, int64_t channels);

// A per-channel operand (C values, every other dim 1: conv bias [C], BN shift [C,1,1]) as
// [C/x, 1, 1, x], which right-aligns with [N, C/x, H, W, x]. Same bytes: c = cb*x + ci.
graph::HostTensor BlockPerChannel(const graph::HostTensor& t, int64_t channels, int64_t block);

}  // namespace tunefarm::passes
