// Refused calls (a missing or wrong token) are logged with the caller's address, so that an
// operator sees a misconfigured agent, or someone probing, in the server's log.
//
// Process-wide, because the token gate (token_gate.h) of every server's credentials writes to
// it, and silent until a server's main sets a sink. gRPC does not tell the gate the caller's
// address, so a line names the method called. Rate-limited: a flood of bad calls must not flood
// the log or slow the server, so at most kMaxLinesPerMinute lines per minute are written and
// the next line says how many were left out.
#ifndef TUNEFARM_PROTO_REFUSAL_LOG_H_
#define TUNEFARM_PROTO_REFUSAL_LOG_H_

#include <functional>
#include <string>
#include <string_view>

namespace tunefarm::wire {

inline constexpr int kMaxLinesPerMinute = 10;

// Where refusal lines go; null (the default) drops them.
void SetRefusalLog(std::function<void(const std::string&)> sink);

// "refused a call to <method>: <why>", subject to the rate limit.
void LogRefusal(std::string_view method, std::string_view why);

}  // namespace tunefarm::wire

#endif  // TUNEFARM_PROTO_REFUSAL_LOG_H_
