// ai.onnx.ml model ops (linear, SVM, tree ensembles) against hand-computed scores.
#include <algorithm>
#include <cmath>
#include <random>
#include <string>

#include "unit/providers/ml_test_helpers.hpp"

namespace tessera {
namespace {

using mltest::attr_strings;
using mltest::expect_near;
using mltest::run_ml;
using mltest::strings;
using mltest::values;
using test::attr_floats;
using test::attr_int;
using test::attr_ints;
using test::attr_string;
using test::attr_tensor;

double sigmoid(double v) { return 1 / (1 + std::exp(-v)); }

TEST(MlModels, LinearClassifierMulticlass) {
  auto x = Tensor::from_vector<float>({1, 2, 3, -1}, Shape{2, 2});
  auto out =
      run_ml("LinearClassifier", {x},
             {attr_floats("coefficients", {1, 0, 0, 1, 1, 1}),
              attr_floats("intercepts", {0, 0, -5}), attr_ints("classlabels_ints", {10, 20, 30})},
             1, 2);
  EXPECT_EQ(values(out[0]), (std::vector<double>{20, 10}));
  expect_near(values(out[1]), {1, 2, -2, 3, -1, -3});
}

TEST(MlModels, LinearClassifierBinaryAddsSecondColumn) {
  auto x = Tensor::from_vector<int32_t>({1, 2, 3, -1}, Shape{2, 2});
  auto out = run_ml("LinearClassifier", {x},
                    {attr_floats("coefficients", {1, -1}), attr_floats("intercepts", {0.5f}),
                     attr_strings("classlabels_strings", {"neg", "pos"})},
                    1, 2);
  EXPECT_EQ(strings(out[0]), (std::vector<std::string>{"neg", "pos"}));
  expect_near(values(out[1]), {0.5, -0.5, -4.5, 4.5});
  auto lg =
      run_ml("LinearClassifier", {x},
             {attr_floats("coefficients", {1, -1}), attr_floats("intercepts", {0.5f}),
              attr_ints("classlabels_ints", {0, 1}), attr_string("post_transform", "LOGISTIC")},
             1, 2);
  expect_near(values(lg[1]), {sigmoid(0.5), sigmoid(-0.5), sigmoid(-4.5), sigmoid(4.5)});
}

// Many rows (the GEMM's whole tiles and its remainders) against a double
// reference, for each post-transform of a multiclass model.
TEST(MlModels, LinearClassifierManyRowsMatchesDoubleReference) {
  const int64_t rows = 53, features = 37, classes = 7;
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> u(-1, 1);
  std::vector<float> x(static_cast<size_t>(rows * features)),
      w(static_cast<size_t>(classes * features)), b(static_cast<size_t>(classes));
  for (auto* v : {&x, &w, &b})
    for (float& e : *v) e = u(rng);
  std::vector<int64_t> labels;
  for (int64_t c = 0; c < classes; ++c) labels.push_back(100 + c);
  for (const char* pt : {"NONE", "SOFTMAX", "LOGISTIC", "SOFTMAX_ZERO"}) {
    auto out = run_ml("LinearClassifier", {Tensor::from_vector<float>(x, Shape{rows, features})},
                      {attr_floats("coefficients", w), attr_floats("intercepts", b),
                       attr_ints("classlabels_ints", labels), attr_string("post_transform", pt)},
                      1, 2);
    std::vector<double> want, want_label;
    for (int64_t n = 0; n < rows; ++n) {
      std::vector<double> s(static_cast<size_t>(classes));
      for (int64_t c = 0; c < classes; ++c) {
        double acc = b[size_t(c)];
        for (int64_t k = 0; k < features; ++k)
          acc += double(x[size_t(n * features + k)]) * w[size_t(c * features + k)];
        s[size_t(c)] = acc;
      }
      const std::string p = pt;
      if (p == "LOGISTIC")
        for (double& v : s) v = sigmoid(v);
      if (p == "SOFTMAX" || p == "SOFTMAX_ZERO") {
        const double mx = *std::max_element(s.begin(), s.end());
        double sum = 0;
        for (double& v : s) sum += (v = std::exp(v - mx));
        for (double& v : s) v /= sum;
      }
      want_label.push_back(double(100 + (std::max_element(s.begin(), s.end()) - s.begin())));
      want.insert(want.end(), s.begin(), s.end());
    }
    SCOPED_TRACE(pt);
    EXPECT_EQ(out[1].tensor().shape(), (Shape{rows, classes}));
    expect_near(values(out[1]), want, 1e-5);
    EXPECT_EQ(values(out[0]), want_label);
  }
}

TEST(MlModels, LinearRegressorSoftmax) {
  auto x = Tensor::from_vector<double>({1, 2}, Shape{2});
  auto out = run_ml("LinearRegressor", {x},
                    {attr_floats("coefficients", {1, 0, 0, 1}), attr_floats("intercepts", {0, 1}),
                     attr_int("targets", 2), attr_string("post_transform", "SOFTMAX")},
                    1);
  EXPECT_EQ(out[0].tensor().shape(), (Shape{1, 2}));
  double a = 1 / (1 + std::exp(2.0));
  expect_near(values(out[0]), {a, 1 - a});
  EXPECT_THROW(run_ml("LinearRegressor", {x}, {attr_floats("coefficients", {1, 0, 0})}, 1), Error);
}

TEST(MlModels, SVMRegressorLinearRbfOneClass) {
  auto x = Tensor::from_vector<float>({1, 1}, Shape{1, 2});
  auto lin = run_ml("SVMRegressor", {x},
                    {attr_floats("coefficients", {2, -1}), attr_floats("rho", {0.5f})}, 1);
  expect_near(values(lin[0]), {1.5});
  std::vector<ir::Attribute> rbf = {
      attr_int("n_supports", 1),         attr_floats("support_vectors", {0, 0}),
      attr_floats("coefficients", {2}),  attr_floats("rho", {1}),
      attr_string("kernel_type", "RBF"), attr_floats("kernel_params", {0.5f, 0, 0})};
  expect_near(values(run_ml("SVMRegressor", {x}, rbf, 1)[0]), {2 * std::exp(-1.0) + 1});
  rbf.push_back(attr_int("one_class", 1));
  expect_near(values(run_ml("SVMRegressor", {x}, rbf, 1)[0]), {1});
}

TEST(MlModels, SVMClassifierOneVsOneVotes) {
  auto x = Tensor::from_vector<float>({3, 0}, Shape{1, 2});
  auto out = run_ml("SVMClassifier", {x},
                    {attr_ints("vectors_per_class", {1, 1, 1}),
                     attr_floats("support_vectors", {1, 0, 0, 1, -1, -1}),
                     attr_floats("coefficients", {1, -1, 1, 1, 1, -1}),
                     attr_floats("rho", {0, 1, 0}), attr_ints("classlabels_ints", {5, 6, 7})},
                    1, 2);
  EXPECT_EQ(values(out[0]), (std::vector<double>{5}));
  expect_near(values(out[1]), {3, 1, 3});
}

TEST(MlModels, SVMClassifierLinearBinary) {
  auto x = Tensor::from_vector<float>({1, 3}, Shape{1, 2});
  auto out = run_ml("SVMClassifier", {x},
                    {attr_floats("coefficients", {1, 0, 0, 1}), attr_floats("rho", {0.5f}),
                     attr_ints("classlabels_ints", {0, 1})},
                    1, 2);
  EXPECT_EQ(values(out[0]), (std::vector<double>{1}));
  expect_near(values(out[1]), {1.5, 3.5});
}

TEST(MlModels, SVMClassifierProbabilities) {
  auto x = Tensor::from_vector<float>({2}, Shape{1, 1});
  auto out = run_ml(
      "SVMClassifier", {x},
      {attr_ints("vectors_per_class", {1, 1}), attr_floats("support_vectors", {1, -1}),
       attr_floats("coefficients", {1, -1}), attr_floats("rho", {0}), attr_floats("prob_a", {-1}),
       attr_floats("prob_b", {0}), attr_ints("classlabels_ints", {3, 4})},
      1, 2);
  // Decision value 4; P(class 0) = 1 - sigmoid(4 * -1 + 0), up to the coupling
  // iteration's stopping tolerance (0.005 / k).
  EXPECT_EQ(values(out[0]), (std::vector<double>{3}));
  expect_near(values(out[1]), {sigmoid(4), 1 - sigmoid(4)}, 1e-3);
}

// Tree 0: x0 <= 0.5 ? node 1 : node 2 (leaves); tree 1: a single leaf.
std::vector<ir::Attribute> two_trees(const char* prefix, std::vector<int64_t> ids,
                                     std::vector<float> w) {
  std::string p(prefix);
  return {
      attr_ints("nodes_treeids", {0, 0, 0, 1}),
      attr_ints("nodes_nodeids", {0, 1, 2, 0}),
      attr_ints("nodes_featureids", {0, 0, 0, 0}),
      attr_strings("nodes_modes", {"BRANCH_LEQ", "LEAF", "LEAF", "LEAF"}),
      attr_tensor("nodes_values_as_tensor", Tensor::from_vector<double>({0.5, 0, 0, 0}, Shape{4})),
      attr_ints("nodes_truenodeids", {1, 0, 0, 0}),
      attr_ints("nodes_falsenodeids", {2, 0, 0, 0}),
      attr_ints(p + "_treeids", {0, 0, 1}),
      attr_ints(p + "_nodeids", {1, 2, 0}),
      attr_ints(p + "_ids", std::move(ids)),
      attr_floats(p + "_weights", std::move(w))};
}

TEST(MlModels, TreeEnsembleRegressorAggregates) {
  auto x = Tensor::from_vector<float>({0, 1}, Shape{2, 1});
  auto run = [&](const char* agg) {
    auto a = two_trees("target", {0, 0, 0}, {1, 2, 10});
    a.push_back(attr_int("n_targets", 1));
    a.push_back(attr_floats("base_values", {100}));
    a.push_back(attr_string("aggregate_function", agg));
    return values(run_ml("TreeEnsembleRegressor", {x}, a, 3)[0]);
  };
  expect_near(run("SUM"), {111, 112});
  expect_near(run("AVERAGE"), {105.5, 106});
  expect_near(run("MIN"), {101, 102});
  expect_near(run("MAX"), {110, 110});
}

// Many rows through many trees (the kernel walks them tree by tree over all
// rows, in groups) against a plain walk of each row through each tree in
// turn: complete trees of depth 4 over 3 features, each leaf weighting both
// of 2 targets; some features NaN, which half the nodes send to the true
// child.
TEST(MlModels, TreeEnsembleRegressorManyRowsMatchPlainWalk) {
  const int trees = 7, depth = 4, features = 3, targets = 2, rows = 53;
  const int branches = (1 << depth) - 1, nodes = (1 << (depth + 1)) - 1;
  std::mt19937 rng(11);
  std::normal_distribution<float> normal(0.f, 1.f);
  std::vector<int64_t> tid, nid, fid, tru, fal, ltid, lnid, lid, miss;
  std::vector<float> thr, lw;
  std::vector<std::string> modes;
  for (int t = 0; t < trees; ++t)
    for (int i = 0; i < nodes; ++i) {
      const bool leaf = i >= branches;
      tid.push_back(t), nid.push_back(i), fid.push_back(leaf ? 0 : int64_t(rng() % features));
      thr.push_back(leaf ? 0.f : normal(rng));
      modes.push_back(leaf ? "LEAF" : "BRANCH_LEQ");
      tru.push_back(leaf ? 0 : 2 * i + 1), fal.push_back(leaf ? 0 : 2 * i + 2);
      miss.push_back(int64_t(rng() % 2));
      if (leaf)
        for (int k = 0; k < targets; ++k)
          ltid.push_back(t), lnid.push_back(i), lid.push_back(k), lw.push_back(normal(rng));
    }
  std::vector<float> xv(size_t(rows * features));
  for (float& v : xv) v = rng() % 10 == 0 ? std::nanf("") : normal(rng);
  auto x = Tensor::from_vector<float>(xv, Shape{rows, features});
  for (const char* agg : {"SUM", "AVERAGE", "MIN", "MAX"}) {
    std::vector<ir::Attribute> a = {
        attr_ints("nodes_treeids", tid),        attr_ints("nodes_nodeids", nid),
        attr_ints("nodes_featureids", fid),     attr_floats("nodes_values", thr),
        attr_strings("nodes_modes", modes),     attr_ints("nodes_truenodeids", tru),
        attr_ints("nodes_falsenodeids", fal),   attr_ints("target_treeids", ltid),
        attr_ints("target_nodeids", lnid),      attr_ints("target_ids", lid),
        attr_floats("target_weights", lw),      attr_int("n_targets", targets),
        attr_string("aggregate_function", agg), attr_ints("nodes_missing_value_tracks_true", miss)};
    std::vector<double> want;
    for (int n = 0; n < rows; ++n) {
      std::vector<double> acc(targets, 0.0);
      for (int t = 0; t < trees; ++t) {
        int i = 0;
        while (i < branches) {
          const size_t at = size_t(t * nodes + i);
          const double v = xv[size_t(n * features) + size_t(fid[at])];
          const bool go = std::isnan(v) ? miss[at] == 1 : v <= double(thr[at]);
          i = go ? 2 * i + 1 : 2 * i + 2;
        }
        for (int k = 0; k < targets; ++k) {
          const double w = lw[size_t(((t * (nodes - branches)) + (i - branches)) * targets + k)];
          const std::string g = agg;
          acc[size_t(k)] = t == 0       ? w
                           : g == "MIN" ? std::min(acc[size_t(k)], w)
                           : g == "MAX" ? std::max(acc[size_t(k)], w)
                                        : acc[size_t(k)] + w;
        }
      }
      for (double v : acc) want.push_back(std::string(agg) == "AVERAGE" ? v / trees : v);
    }
    SCOPED_TRACE(agg);
    expect_near(values(run_ml("TreeEnsembleRegressor", {x}, a, 3)[0]), want, 1e-5);
  }
}

TEST(MlModels, TreeEnsembleClassifierLabelsAndBinary) {
  auto x = Tensor::from_vector<double>({0, 1}, Shape{2, 1});
  auto a = two_trees("class", {0, 1, 1}, {1, 1, 0});
  a.push_back(attr_strings("classlabels_strings", {"a", "b"}));
  auto out = run_ml("TreeEnsembleClassifier", {x}, a, 3, 2);
  EXPECT_EQ(strings(out[0]), (std::vector<std::string>{"a", "b"}));
  expect_near(values(out[1]), {1, 0, 0, 1});

  auto b = two_trees("class", {0, 0, 0}, {0.3f, 0.8f, 0});
  b.push_back(attr_ints("classlabels_int64s", {0, 1}));
  auto nb = run_ml("TreeEnsembleClassifier", {x}, b, 3, 2);
  EXPECT_EQ(values(nb[0]), (std::vector<double>{0, 1}));
  expect_near(values(nb[1]), {0.7, 0.3, 0.2, 0.8});
  b.push_back(attr_string("post_transform", "LOGISTIC"));
  auto lb = run_ml("TreeEnsembleClassifier", {x}, b, 3, 2);
  expect_near(values(lb[1]), {sigmoid(-0.3), sigmoid(0.3), sigmoid(-0.8), sigmoid(0.8)});
  EXPECT_EQ(values(lb[0]), (std::vector<double>{1, 1}));
}

std::vector<ir::Attribute> v5_model(int64_t agg, int64_t pt) {
  return {attr_ints("nodes_featureids", {0, 1, 0}),
          attr_tensor("nodes_modes", Tensor::from_vector<uint8_t>({6, 1, 0}, Shape{3})),
          attr_tensor("nodes_splits", Tensor::from_vector<float>({0, 0, 0}, Shape{3})),
          attr_ints("nodes_truenodeids", {0, 1, 3}),
          attr_ints("nodes_trueleafs", {1, 1, 1}),
          attr_ints("nodes_falsenodeids", {1, 2, 3}),
          attr_ints("nodes_falseleafs", {0, 1, 1}),
          attr_ints("leaf_targetids", {0, 1, 0, 1}),
          attr_tensor("leaf_weights", Tensor::from_vector<float>({5, -1, 2, 1}, Shape{4})),
          attr_tensor("membership_values", Tensor::from_vector<float>({1, 3, NAN}, Shape{3})),
          attr_ints("tree_roots", {0, 2}),
          attr_int("n_targets", 2),
          attr_int("aggregate_function", agg),
          attr_int("post_transform", pt)};
}

TEST(MlModels, TreeEnsembleV5MembershipAndAggregates) {
  auto x = Tensor::from_vector<float>({3, 5, 2, -1, 2, 1}, Shape{3, 2});
  auto sum = run_ml("TreeEnsemble", {x}, v5_model(1, 0), 5);
  EXPECT_EQ(sum[0].tensor().dtype(), DataType::kFloat);
  EXPECT_EQ(sum[0].tensor().shape(), (Shape{3, 2}));
  expect_near(values(sum[0]), {5, 1, 0, 0, 2, 1});
  expect_near(values(run_ml("TreeEnsemble", {x}, v5_model(3, 0), 5)[0]), {5, 1, 0, 1, 2, 1});
  expect_near(values(run_ml("TreeEnsemble", {x}, v5_model(0, 0), 5)[0]), {2.5, 0.5, 0, 0, 1, 0.5});
  double a = 1 / (1 + std::exp(-4.0));
  auto sm = values(run_ml("TreeEnsemble", {x}, v5_model(1, 1), 5)[0]);
  expect_near({sm[0], sm[1]}, {a, 1 - a});
  // A feature beyond X's width is an error, not an out-of-bounds read.
  EXPECT_THROW(
      run_ml("TreeEnsemble", {Tensor::from_vector<float>({1}, Shape{1, 1})}, v5_model(1, 0), 5),
      Error);
}

TEST(MlModels, TreeEnsembleRejectsCycles) {
  auto a = v5_model(1, 0);
  a[5] = attr_ints("nodes_falsenodeids", {1, 0, 3});  // node 1's false branch back to the root
  a[6] = attr_ints("nodes_falseleafs", {0, 0, 1});
  EXPECT_THROW(run_ml("TreeEnsemble", {Tensor::from_vector<float>({2, 1}, Shape{1, 2})}, a, 5),
               Error);
}

}  // namespace
}  // namespace tessera
