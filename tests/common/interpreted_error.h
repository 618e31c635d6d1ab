// A scheduled DAG checked against the plain evaluation of its original DAG: lowered, run
// through the loop-IR interpreter on seeded random float inputs (rewritten weights transformed
// as the compiler does), compared element by element
// (gtest failures for a lowering or interpreter error; an element left unwritten, or NaN where
// the reference is not, counts as an error of 1e30).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <vector>

#include "compiler/tir/interpreter.h"
#include "compiler/tir/lower.h"
#include "tests/common/dag_evaluator.h"
#include "tests/common/rewritten_weights.h"
#include "tests/common/test_dags.h"

namespace tunefarm::testing {

// How the lowered function runs: tir::Interpret, or tir::InterpretAsGpu for a GPU schedule.
using InterpretFn = std::function<absl::Status(const tir::PrimFunc&, const std::vector<void*>&)>;

// The max abs difference over the first output (1e30 when the schedule does not lower); a DAG
// with several outputs gets a buffer for each.
inline double InterpretedError(const schedule::State& s, uint64_t seed,
                               const InterpretFn& interpret = [](const tir::PrimFunc& f, const std::vector<void*>& args) {
                                 return tir::Interpret(f, args);
                               }) {
  const te::ComputeDag& dag = *s.original_dag();
  auto f = tir::Lower(s, "k");
  EXPECT_TRUE(f.ok()) << f.status() << "\n" << s.ToString();
  if (!f.ok()) return 1e30;
  std::vector<std::vector<float>> in;
  std::vector<std::vector<double>> in64;
  for (size_t i = 0; i < dag.inputs().size(); ++i) {
    in.push_back(RandomFloats(dag.tensor(dag.inputs()[i]).NumElements(), seed + i));
    in64.emplace_back(in.back().begin(), in.back().end());
  }
  absl::Status rewritten = RewriteFloatInputs(s, &in);  // weights in the layout `s` reads them
  EXPECT_TRUE(rewritten.ok()) << rewritten;
  std::vector<void*> args;
  for (std::vector<float>& v : in) args.push_back(v.data());
  // Every output gets its buffer; the first is compared.
  std::vector<std::vector<float>> outs;
  for (int o : dag.outputs()) outs.emplace_back(dag.tensor(o).NumElements(), NAN);
  for (std::vector<float>& o : outs) args.push_back(o.data());
  const std::vector<float>& out = outs[0];
  absl::Status st = interpret(*f, args);
  EXPECT_TRUE(st.ok()) << st << "\n" << tir::PrimFuncToString(*f);
  auto ref = DagEvaluator(dag).Run(in64)[0];
  double worst = 0;
  for (size_t i = 0; i < out.size(); ++i) {
    // The output starts as NaN: an element never written stays NaN, which std::max would skip.
    if (std::isnan(out[i]) != std::isnan(ref[i])) return 1e30;
    if (!std::isnan(out[i])) worst = std::max(worst, std::fabs(out[i] - ref[i]));
  }
  return worst;
}

}  // namespace tunefarm::testing
