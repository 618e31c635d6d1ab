// How `tunefarm devices` prints a ListDevicesReply: a table for people, JSON for scripts.
#ifndef TUNEFARM_TRACKER_DEVICES_FORMAT_H_
#define TUNEFARM_TRACKER_DEVICES_FORMAT_H_

#include <string>

#include "proto/tunefarm.pb.h"

namespace tunefarm::tracker {

std::string FormatDevicesTable(const v1::ListDevicesReply& reply);
// The proto3 JSON mapping of the reply, with the .proto field names (snake_case).
std::string FormatDevicesJson(const v1::ListDevicesReply& reply);

}  // namespace tunefarm::tracker

#endif  // TUNEFARM_TRACKER_DEVICES_FORMAT_H_
