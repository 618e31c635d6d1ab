// Where a conv's padding stage should live: inlined into the conv (the default for cheap
// producers) or computed once at the root.
//
// Inlined into a conv that accumulates in memory (the default rules' convs), the padding's
// bounds test stays a select on every broadcast of the register tile; inlined into a local tile,
// the taps on the padding are skipped instead (compiler/tir/skip_padded_taps.h). Computed at the
// root it costs one more pass over the input. The pass pays off when the conv
// does much work per padded element and reads whole vectors of channels: SqueezeNet's 3x3
// expand convs (16-48 input channels, 2 threads) ran 1.3-2.3x faster with the padding at the
// root. A depthwise conv (18 flops per padded element) and a stem (3 channels per block) do
// too little per element, so they keep it inlined. Measured again with skipped taps (session
// 25, ResNet-18's 3x3 layers, default schedules): inlined 40-70% of the FMA peak against 69-99%
// at the root. Used by the default rules and the sketch rules (which then try both placements).
#pragma once

#include "compiler/schedule/state.h"

namespace tunefarm::schedule {

// True when `stage` is a padding (a select) read by one reuse-heavy stage alone that does at
// least kMinFlopsPerPaddedElement flops per element, with channel blocks of at least
// `vector_lanes`.
bool PaddingWorthComputingOnce(const State& s, int stage, int vector_lanes);

inline constexpr double kMinFlopsPerPaddedElement = 256;

}  // namespace tunefarm::schedule
