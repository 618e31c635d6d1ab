// Canonical text of expressions: an s-expression per node, `(kind dtype payload... operands...)`.
// Floats print as exact hexadecimal, so text -> Expr -> text is the identity.
#pragma once

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "compiler/te/expr.h"

namespace tunefarm::te {

std::string ExprToText(const Expr& e);
void AppendExprText(const Expr& e, std::string* out);

// Parses one expression from `text` starting at *pos and advances *pos past it.
absl::StatusOr<Expr> ParseExprText(std::string_view text, size_t* pos);
absl::StatusOr<Expr> ParseExprText(std::string_view text);

// Shared tokenizer for the DAG text: skips spaces, returns the next atom or "(" / ")".
std::string_view NextToken(std::string_view text, size_t* pos);

// Exact float formatting used by every canonical printer.
std::string FormatExactDouble(double v);
bool ParseExactDouble(std::string_view s, double* out);

}  // namespace tunefarm::te
