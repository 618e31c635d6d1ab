// Sizes fixed by the wire protocol (docs/wire.md).
#ifndef TUNEFARM_PROTO_WIRE_LIMITS_H_
#define TUNEFARM_PROTO_WIRE_LIMITS_H_

#include <cstdint>

namespace tunefarm::wire {

// Largest Chunk.data in an Upload: keeps every message far below gRPC's 4 MiB default limit.
inline constexpr int64_t kMaxChunkBytes = int64_t{1} << 20;

}  // namespace tunefarm::wire

#endif  // TUNEFARM_PROTO_WIRE_LIMITS_H_
