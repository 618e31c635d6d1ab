#include "compiler/te/expr_text.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "absl/status/status.h"
#include "common/strings.h"

namespace tunefarm::te {

std::string FormatExactDouble(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%a", v);
  return buf;
}

bool ParseExactDouble(std::string_view s, double* out) {
  std::string str(s);
  if (str == "nan") return *out = NAN, true;
  if (str == "inf") return *out = INFINITY, true;
  if (str == "-inf") return *out = -INFINITY, true;
  char* end = nullptr;
  *out = std::strtod(str.c_str(), &end);
  return !str.empty() && end == str.c_str() + str.size();
}

void AppendExprText(const Expr& e, std::string* out) {
  StrAppend(out, "(", ExprKindName(e->kind), " ", DTypeName(e->dtype));
  switch (e->kind) {
    case ExprKind::kIntImm:
    case ExprKind::kAxis:
    case ExprKind::kReduceAxis:
    case ExprKind::kLoad:
      StrAppend(out, " ", e->int_value);
      break;
    case ExprKind::kVar:
      StrAppend(out, " ", e->int_value, " ", e->name.empty() ? "_" : e->name);
      break;
    case ExprKind::kFloatImm:
      StrAppend(out, " ", FormatExactDouble(e->float_value));
      break;
    case ExprKind::kCall:
      StrAppend(out, " ", IntrinsicName(static_cast<Intrinsic>(e->int_value)));
      break;
    default:
      break;
  }
  for (const Expr& op : e->operands) {
    out->push_back(' ');
    AppendExprText(op, out);
  }
  out->push_back(')');
}

std::string ExprToText(const Expr& e) {
  std::string s;
  AppendExprText(e, &s);
  return s;
}

std::string_view NextToken(std::string_view text, size_t* pos) {
  size_t i = *pos;
  while (i < text.size() && (text[i] == ' ' || text[i] == '\n' || text[i] == '\t')) ++i;
  if (i >= text.size()) return *pos = i, std::string_view();
  if (text[i] == '(' || text[i] == ')') return *pos = i + 1, text.substr(i, 1);
  size_t start = i;
  while (i < text.size() && text[i] != ' ' && text[i] != '(' && text[i] != ')' && text[i] != '\n' &&
         text[i] != '\t')
    ++i;
  *pos = i;
  return text.substr(start, i - start);
}

namespace {

absl::Status Error(size_t pos, std::string_view what) {
  return absl::InvalidArgumentError(StrCat("expression text at offset ", pos, ": ", what));
}

absl::StatusOr<int64_t> ParseInt(std::string_view tok, size_t pos) {
  int64_t v;
  if (!ParseInt64(tok, &v)) return Error(pos, StrCat("expected an integer, got '", tok, "'"));
  return v;
}

// Validates what builders would otherwise abort on, so hostile text is an error, not a crash.
absl::Status CheckOperands(ExprKind kind, DType dtype, int64_t payload, const std::vector<Expr>& ops,
                           size_t pos) {
  auto want = [&](size_t n) -> absl::Status {
    if (ops.size() != n)
      return Error(pos, StrCat(ExprKindName(kind), " takes ", n, " operands, got ", ops.size()));
    return absl::OkStatus();
  };
  if (IsBinaryArith(kind)) {
    if (auto s = want(2); !s.ok()) return s;
    if (ops[0]->dtype != dtype || ops[1]->dtype != dtype) return Error(pos, "operand dtype mismatch");
    if (IsStorageFloat(dtype)) return Error(pos, "arithmetic on a storage float (float16/bfloat16)");
    if (kind == ExprKind::kMod && IsFloat(dtype)) return Error(pos, "float modulo");
    return absl::OkStatus();
  }
  if (IsCompare(kind) || kind == ExprKind::kAnd || kind == ExprKind::kOr) {
    if (auto s = want(2); !s.ok()) return s;
    if (dtype != DType::kBool || ops[0]->dtype != ops[1]->dtype) return Error(pos, "bad comparison types");
    if (IsStorageFloat(ops[0]->dtype)) return Error(pos, "comparison of storage floats (float16/bfloat16)");
    if (!IsCompare(kind) && ops[0]->dtype != DType::kBool) return Error(pos, "and/or of non-bool");
    return absl::OkStatus();
  }
  switch (kind) {
    case ExprKind::kNot:
      if (auto s = want(1); !s.ok()) return s;
      return ops[0]->dtype == DType::kBool ? absl::OkStatus() : Error(pos, "not of a non-bool");
    case ExprKind::kSelect:
      if (auto s = want(3); !s.ok()) return s;
      if (ops[0]->dtype != DType::kBool || ops[1]->dtype != dtype || ops[2]->dtype != dtype)
        return Error(pos, "bad select types");
      return absl::OkStatus();
    case ExprKind::kCast:
      return want(1);
    case ExprKind::kIntImm:
      if (IsFloat(dtype) || IsStorageFloat(dtype)) return Error(pos, "integer immediate of a float dtype");
      return want(0);
    case ExprKind::kFloatImm:
      if (!IsFloat(dtype)) return Error(pos, "float immediate of a non-float dtype");
      return want(0);
    case ExprKind::kCall: {
      if (payload < 0 || payload > static_cast<int64_t>(kLastIntrinsic)) return Error(pos, "bad intrinsic");
      if (IsStorageFloat(dtype)) return Error(pos, "math on a storage float (float16/bfloat16)");
      if (auto s = want(IntrinsicArity(static_cast<Intrinsic>(payload))); !s.ok()) return s;
      for (const Expr& op : ops)
        if (op->dtype != dtype) return Error(pos, "intrinsic argument dtype mismatch");
      return absl::OkStatus();
    }
    case ExprKind::kLoad:
      for (const Expr& op : ops)
        if (!IsInt(op->dtype)) return Error(pos, "load index must be an integer");
      return absl::OkStatus();
    default:
      return want(0);
  }
}

}  // namespace

namespace {
// Deep enough for any real kernel, shallow enough that hostile text cannot overflow the stack.
constexpr int kMaxDepth = 512;

absl::StatusOr<Expr> ParseExprAt(std::string_view text, size_t* pos, int depth) {
  size_t start = *pos;
  if (depth > kMaxDepth) return Error(start, "expression nested too deeply");
  if (NextToken(text, pos) != "(") return Error(start, "expected '('");
  ExprKind kind;
  std::string_view kind_tok = NextToken(text, pos);
  if (!ParseExprKind(kind_tok, &kind)) return Error(start, StrCat("unknown node kind '", kind_tok, "'"));
  std::string_view dtype_tok = NextToken(text, pos);
  auto dtype = ParseDType(dtype_tok);
  if (!dtype) return Error(start, StrCat("unknown dtype '", dtype_tok, "'"));

  auto n = std::make_shared<ExprNode>();
  n->kind = kind;
  n->dtype = *dtype;
  switch (kind) {
    case ExprKind::kIntImm:
    case ExprKind::kAxis:
    case ExprKind::kReduceAxis:
    case ExprKind::kLoad:
    case ExprKind::kVar: {
      auto v = ParseInt(NextToken(text, pos), *pos);
      if (!v.ok()) return v.status();
      n->int_value = *v;
      if (kind == ExprKind::kVar) n->name = std::string(NextToken(text, pos));
      break;
    }
    case ExprKind::kFloatImm:
      if (!ParseExactDouble(NextToken(text, pos), &n->float_value)) return Error(*pos, "bad float");
      break;
    case ExprKind::kCall: {
      Intrinsic f;
      std::string_view tok = NextToken(text, pos);
      if (!ParseIntrinsic(tok, &f)) return Error(*pos, StrCat("unknown intrinsic '", tok, "'"));
      n->int_value = static_cast<int64_t>(f);
      break;
    }
    default:
      break;
  }
  while (true) {
    size_t peek = *pos;
    std::string_view tok = NextToken(text, &peek);
    if (tok == ")") {
      *pos = peek;
      break;
    }
    if (tok != "(") return Error(*pos, tok.empty() ? "unexpected end of text" : "expected '(' or ')'");
    auto op = ParseExprAt(text, pos, depth + 1);
    if (!op.ok()) return op.status();
    n->operands.push_back(*std::move(op));
  }
  if (auto s = CheckOperands(kind, n->dtype, n->int_value, n->operands, start); !s.ok()) return s;
  return Expr(std::move(n));
}
}  // namespace

absl::StatusOr<Expr> ParseExprText(std::string_view text, size_t* pos) { return ParseExprAt(text, pos, 0); }

absl::StatusOr<Expr> ParseExprText(std::string_view text) {
  size_t pos = 0;
  auto e = ParseExprText(text, &pos);
  if (!e.ok()) return e;
  if (!NextToken(text, &pos).empty()) return Error(pos, "trailing text");
  return e;
}

}  // namespace tunefarm::te
