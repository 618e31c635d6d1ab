#include "tuner/cost_model/xgb_cost_model.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <utility>

#include "common/strings.h"
#include "tuner/cost_model/model_file.h"
#include "tuner/cost_model/pack_sum.h"
#include "tuner/cost_model/pack_sum_objective.h"

namespace tunefarm::tuner {
namespace {

constexpr float kMissing = std::numeric_limits<float>::quiet_NaN();

// Everything XGBoost is told, also after a Load or a Slice (neither keeps all of it).
absl::Status Configure(BoosterHandle booster, const XgbParams& p) {
  const std::pair<const char*, std::string> settings[] = {
      {"booster", "gbtree"},
      {"tree_method", p.tree_method},
      {"max_depth", StrCat(p.max_depth)},
      {"max_bin", StrCat(p.max_bin)},
      {"gamma", StrCat(p.gamma)},
      {"min_child_weight", StrCat(p.min_child_weight)},
      {"eta", StrCat(p.eta)},
      {"nthread", StrCat(p.nthread)},
      {"seed", StrCat(p.seed)},
      {"verbosity", "0"},
      // A row's score is its trees' sum alone: with XGBoost's default 0.5 a program's score
      // would carry 0.5 per row, favouring programs with more stores.
      {"base_score", "0"},
      {"disable_default_eval_metric", "1"},
  };
  for (const auto& [name, value] : settings) {
    if (auto s = XgbCall(XGBoosterSetParam(booster, name, value.c_str()), StrCat("XGBoosterSetParam ", name));
        !s.ok()) {
      return s;
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<XgbDMatrix> MakeDMatrix(const PackedRows& packed, int nthread) {
  XgbDMatrix matrix;
  if (auto s = XgbCall(XGDMatrixCreateFromMat_omp(packed.values.data(), packed.rows(), packed.cols, kMissing,
                                                  matrix.out(), nthread),
                       "XGDMatrixCreateFromMat");
      !s.ok()) {
    return s;
  }
  return matrix;
}

// One float per row of `rows` rows.
absl::Status CheckRowOutput(const bst_ulong* shape, bst_ulong dim, int rows, std::string_view call) {
  if (dim < 1 || shape[0] != static_cast<bst_ulong>(rows) || (dim == 2 && shape[1] != 1) || dim > 2) {
    return absl::InternalError(StrCat("cost model: ", call, " returned an unexpected shape"));
  }
  return absl::OkStatus();
}

// Row margins (raw tree sums) of a DMatrix that XGBoost has seen before: its prediction cache
// makes each call cost only the trees added since the last one.
absl::Status PredictMargins(BoosterHandle booster, const XgbDMatrix& matrix, int rows, std::vector<float>* out) {
  static constexpr char kConfig[] =
      R"({"type": 1, "training": true, "iteration_begin": 0, "iteration_end": 0, "strict_shape": false})";
  const bst_ulong* shape = nullptr;
  bst_ulong dim = 0;
  const float* result = nullptr;
  if (auto s = XgbCall(XGBoosterPredictFromDMatrix(booster, matrix.get(), kConfig, &shape, &dim, &result),
                       "XGBoosterPredictFromDMatrix");
      !s.ok()) {
    return s;
  }
  if (auto s = CheckRowOutput(shape, dim, rows, "XGBoosterPredictFromDMatrix"); !s.ok()) return s;
  out->assign(result, result + rows);
  return absl::OkStatus();
}

absl::Status CheckLabels(const LabeledPrograms& set, std::string_view name) {
  if (set.labels.size() != set.programs.size()) {
    return absl::InvalidArgumentError(
        StrCat(name, ": ", set.programs.size(), " programs but ", set.labels.size(), " labels"));
  }
  for (size_t i = 0; i < set.labels.size(); ++i) {
    if (!std::isfinite(set.labels[i])) {
      return absl::InvalidArgumentError(StrCat(name, ": label of program ", i, " is not finite"));
    }
  }
  return absl::OkStatus();
}

// Labeled programs as XGBoost and the loss see them.
struct PackedSet {
  PackedRows rows;
  std::span<const float> labels;
  std::vector<float> weights;
  XgbDMatrix matrix;
};

absl::StatusOr<PackedSet> Pack(const LabeledPrograms& set, std::string_view name, const XgbParams& params) {
  if (auto s = CheckLabels(set, name); !s.ok()) return s;
  absl::StatusOr<PackedRows> rows = PackRows(set.programs);
  if (!rows.ok()) return absl::InvalidArgumentError(StrCat(name, ": ", std::string(rows.status().message())));
  if (rows->rows() == 0) return absl::InvalidArgumentError(StrCat(name, ": no program has feature rows"));
  absl::StatusOr<XgbDMatrix> matrix = MakeDMatrix(*rows, params.nthread);
  if (!matrix.ok()) return matrix.status();
  return PackedSet{std::move(*rows), set.labels, LabelWeights(set.labels, params.min_label_weight), std::move(*matrix)};
}

// The weighted pack-sum RMSE of `booster` on `set`.
absl::StatusOr<double> Rmse(BoosterHandle booster, const PackedSet& set, std::vector<float>* margins) {
  if (auto s = PredictMargins(booster, set.matrix, set.rows.rows(), margins); !s.ok()) return s;
  return PackSumWeightedRmse(set.rows, *margins, set.labels, set.weights);
}

}  // namespace

XgbCostModel::XgbCostModel(XgbParams params) : params_(std::move(params)) {}

absl::StatusOr<TrainReport> XgbCostModel::Train(const LabeledPrograms& train, const LabeledPrograms* validation) {
  absl::StatusOr<PackedSet> fit = Pack(train, "training set", params_);
  if (!fit.ok()) return fit.status();
  std::optional<PackedSet> val;
  if (validation) {
    absl::StatusOr<PackedSet> packed = Pack(*validation, "validation set", params_);
    if (!packed.ok()) return packed.status();
    if (packed->rows.cols != fit->rows.cols) {
      return absl::InvalidArgumentError(StrCat("validation set has ", packed->rows.cols,
                                               " features per row, training set ", fit->rows.cols));
    }
    val = std::move(*packed);
  }

  XgbBooster booster;
  DMatrixHandle cached[] = {fit->matrix.get(), val ? val->matrix.get() : nullptr};
  if (auto s = XgbCall(XGBoosterCreate(cached, val ? 2 : 1, booster.out()), "XGBoosterCreate"); !s.ok()) return s;
  if (auto s = Configure(booster.get(), params_); !s.ok()) return s;

  // Boosting with the pack-sum gradient; the margins of both sets come from XGBoost's
  // prediction cache, so a round costs its new tree only.
  TrainReport report;
  std::vector<float> margins, grad, hess;
  double best_val_rmse = std::numeric_limits<double>::infinity();
  int best_rounds = 0;
  for (int round = 1; round <= params_.max_rounds; ++round) {
    if (auto s = PredictMargins(booster.get(), fit->matrix, fit->rows.rows(), &margins); !s.ok()) return s;
    PackSumSquareErrorGradients(fit->rows, margins, fit->labels, fit->weights, &grad, &hess);
    if (auto s = XgbCall(XGBoosterBoostOneIter(booster.get(), fit->matrix.get(), grad.data(), hess.data(), grad.size()),
                         "XGBoosterBoostOneIter");
        !s.ok()) {
      return s;
    }
    report.rounds = round;
    if (!val) continue;
    absl::StatusOr<double> rmse = Rmse(booster.get(), *val, &margins);
    if (!rmse.ok()) return rmse.status();
    if (*rmse < best_val_rmse) {
      best_val_rmse = *rmse;
      best_rounds = round;
    } else if (params_.early_stopping_rounds > 0 && round - best_rounds >= params_.early_stopping_rounds) {
      break;
    }
  }
  if (val) {
    report.validation_rmse = best_val_rmse;
    if (best_rounds < report.rounds) {  // keep the best round's trees
      XgbBooster best;
      if (auto s = XgbCall(XGBoosterSlice(booster.get(), 0, best_rounds, 1, best.out()), "XGBoosterSlice"); !s.ok()) {
        return s;
      }
      if (auto s = Configure(best.get(), params_); !s.ok()) return s;
      booster = std::move(best);
      report.rounds = best_rounds;
    }
  }
  absl::StatusOr<double> train_rmse = Rmse(booster.get(), *fit, &margins);
  if (!train_rmse.ok()) return train_rmse.status();
  report.train_rmse = *train_rmse;

  booster_ = std::move(booster);
  feature_cols_ = fit->rows.cols;
  return report;
}

absl::StatusOr<std::vector<float>> XgbCostModel::Predict(std::span<const FeatureMatrix> programs) const {
  if (!trained()) return absl::FailedPreconditionError("cost model is not trained: rank in random order");
  absl::StatusOr<PackedRows> rows = PackRows(programs);
  if (!rows.ok()) return rows.status();
  std::vector<float> scores(programs.size(), 0.0f);
  if (rows->rows() == 0) return scores;
  if (rows->cols != feature_cols_) {
    return absl::InvalidArgumentError(
        StrCat("programs have ", rows->cols, " features per row, the cost model ", feature_cols_));
  }
  // In-place prediction from the packed rows: no DMatrix to build per call.
  std::string array = StrCat(R"({"data": [)", reinterpret_cast<uintptr_t>(rows->values.data()),
                                   R"(, true], "shape": [)", rows->rows(), ", ", rows->cols,
                                   R"(], "typestr": "<f4", "version": 3})");
  static constexpr char kConfig[] =
      R"({"type": 1, "training": false, "iteration_begin": 0, "iteration_end": 0, "strict_shape": false, )"
      R"("cache_id": 0, "missing": NaN})";
  const bst_ulong* shape = nullptr;
  bst_ulong dim = 0;
  const float* result = nullptr;
  if (auto s = XgbCall(XGBoosterPredictFromDense(booster_.get(), array.c_str(), kConfig, nullptr, &shape, &dim, &result),
                       "XGBoosterPredictFromDense");
      !s.ok()) {
    return s;
  }
  if (auto s = CheckRowOutput(shape, dim, rows->rows(), "XGBoosterPredictFromDense"); !s.ok()) return s;
  std::vector<double> sums = SumPerProgram(*rows, std::span<const float>(result, rows->rows()));
  for (size_t p = 0; p < sums.size(); ++p) scores[p] = static_cast<float>(sums[p]);
  return scores;
}

absl::Status XgbCostModel::Save(const std::string& path) const {
  if (!trained()) return absl::FailedPreconditionError(StrCat(path, ": cannot save an untrained cost model"));
  bst_ulong length = 0;
  const char* bytes = nullptr;
  if (auto s = XgbCall(XGBoosterSaveModelToBuffer(booster_.get(), R"({"format": "ubj"})", &length, &bytes),
                       "XGBoosterSaveModelToBuffer");
      !s.ok()) {
    return s;
  }
  return WriteModelFile(path, {feature_cols_, std::string(bytes, length)});
}

absl::StatusOr<XgbCostModel> XgbCostModel::Load(const std::string& path, int expected_cols, XgbParams params) {
  absl::StatusOr<ModelFileContents> contents = ReadModelFile(path);
  if (!contents.ok()) return contents.status();
  if (contents->feature_cols != expected_cols) {
    return absl::FailedPreconditionError(StrCat(path, ": model was trained on ", contents->feature_cols,
                                                      " features per row, the features now have ", expected_cols));
  }
  auto in_file = [&](const absl::Status& s) {
    return absl::DataLossError(StrCat(path, ": ", std::string(s.message())));
  };
  XgbCostModel model(std::move(params));
  if (auto s = XgbCall(XGBoosterCreate(nullptr, 0, model.booster_.out()), "XGBoosterCreate"); !s.ok()) return s;
  if (auto s = XgbCall(XGBoosterLoadModelFromBuffer(model.booster_.get(), contents->booster.data(),
                                                    contents->booster.size()),
                       "XGBoosterLoadModelFromBuffer");
      !s.ok()) {
    return in_file(s);
  }
  if (auto s = Configure(model.booster_.get(), model.params_); !s.ok()) return s;
  bst_ulong booster_cols = 0;
  if (auto s = XgbCall(XGBoosterGetNumFeature(model.booster_.get(), &booster_cols), "XGBoosterGetNumFeature");
      !s.ok()) {
    return in_file(s);
  }
  if (booster_cols != static_cast<bst_ulong>(contents->feature_cols)) {
    return absl::DataLossError(StrCat(path, ": header says ", contents->feature_cols,
                                            " features per row, the booster ", booster_cols));
  }
  model.feature_cols_ = contents->feature_cols;
  return model;
}

}  // namespace tunefarm::tuner
