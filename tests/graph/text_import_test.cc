// TfIdfVectorizer (family_text.cc + ops/tfidf.h) against ONNX's definition written out on random
// tokens and pools: every n-gram length in [min, max] at every skip up to max_skip_count,
// unigrams counted once, the three modes, weights, 1-D and 2-D inputs. The input is an
// initializer, so the import folds the op and the output is a constant.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <set>

#include "compiler/frontend/onnx_importer.h"
#include "onnx/onnx_pb.h"

namespace tunefarm::frontend {
namespace {

struct Pool {
  std::vector<std::vector<int64_t>> grams;  // by length, in pool order
  std::vector<int64_t> columns;             // output column per n-gram
  std::vector<float> weights;               // empty: none
};

struct Config {
  int64_t rows = 2, length = 12, min_n = 1, max_n = 3, skip = 2;
  std::string mode = "TF";
  bool batched = true;
};

std::vector<float> Reference(const Config& c, const std::vector<int64_t>& x, const Pool& pool, int64_t J) {
  std::map<std::vector<int64_t>, size_t> index;
  for (size_t g = 0; g < pool.grams.size(); ++g) index[pool.grams[g]] = g;
  std::vector<float> out(c.rows * J, 0);
  for (int64_t r = 0; r < c.rows; ++r) {
    std::vector<float> count(J, 0);
    for (int64_t n = c.min_n; n <= c.max_n; ++n)
      for (int64_t s = 0; s <= (n == 1 ? 0 : c.skip); ++s)
        for (int64_t p = 0; p + (n - 1) * (s + 1) < c.length; ++p) {
          std::vector<int64_t> gram;
          for (int64_t k = 0; k < n; ++k) gram.push_back(x[r * c.length + p + k * (s + 1)]);
          if (auto it = index.find(gram); it != index.end()) count[pool.columns[it->second]] += 1;
        }
    for (size_t g = 0; g < pool.grams.size(); ++g) {
      const int64_t j = pool.columns[g];
      const float w = pool.weights.empty() ? 1.0f : pool.weights[g];
      out[r * J + j] = c.mode == "TF" ? count[j] : c.mode == "IDF" ? (count[j] > 0 ? w : 0) : count[j] * w;
    }
  }
  return out;
}

onnx::ModelProto Model(const Config& c, const std::vector<int64_t>& x, const Pool& pool) {
  onnx::ModelProto m;
  m.set_ir_version(4);
  m.add_opset_import()->set_version(9);
  auto* g = m.mutable_graph();
  auto* t = g->add_initializer();
  t->set_name("x");
  t->set_data_type(onnx::TensorProto::INT64);
  if (c.batched) t->add_dims(c.rows);
  t->add_dims(c.length);
  for (int64_t v : x) t->add_int64_data(v);
  auto* n = g->add_node();
  n->set_op_type("TfIdfVectorizer");
  n->add_input("x");
  n->add_output("y");
  auto ints = [&](const char* name, const std::vector<int64_t>& v) {
    auto* a = n->add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::INTS);
    for (int64_t e : v) a->add_ints(e);
  };
  auto one = [&](const char* name, int64_t v) {
    auto* a = n->add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::INT);
    a->set_i(v);
  };
  std::vector<int64_t> flat, starts;
  for (const auto& gram : pool.grams) {
    while (static_cast<int64_t>(starts.size()) < static_cast<int64_t>(gram.size())) starts.push_back(flat.size());
    flat.insert(flat.end(), gram.begin(), gram.end());
  }
  ints("pool_int64s", flat);
  ints("ngram_counts", starts);
  ints("ngram_indexes", pool.columns);
  one("min_gram_length", c.min_n);
  one("max_gram_length", c.max_n);
  one("max_skip_count", c.skip);
  auto* mode = n->add_attribute();
  mode->set_name("mode");
  mode->set_type(onnx::AttributeProto::STRING);
  mode->set_s(c.mode);
  if (!pool.weights.empty()) {
    auto* w = n->add_attribute();
    w->set_name("weights");
    w->set_type(onnx::AttributeProto::FLOATS);
    for (float v : pool.weights) w->add_floats(v);
  }
  g->add_output()->set_name("y");
  return m;
}

TEST(TfIdfImport, EveryModeLengthAndSkipAgainstTheDefinition) {
  std::mt19937 rng(11);
  std::uniform_int_distribution<int64_t> token(0, 3);  // a small vocabulary, so n-grams repeat
  for (const char* mode : {"TF", "IDF", "TFIDF"})
    for (auto [min_n, max_n, skip, batched] :
         {std::tuple{1, 1, 0, true}, std::tuple{1, 3, 2, true}, std::tuple{2, 2, 0, false}, std::tuple{2, 3, 3, true}}) {
      Config c;
      c.mode = mode;
      c.min_n = min_n;
      c.max_n = max_n;
      c.skip = skip;
      c.batched = batched;
      if (!batched) c.rows = 1;
      std::vector<int64_t> x(c.rows * c.length);
      for (int64_t& v : x) v = token(rng);
      // Pool: 3 unigrams, 4 bigrams, 3 trigrams (distinct), columns shuffled, weights random.
      Pool pool;
      std::set<std::vector<int64_t>> seen;
      for (int64_t n : {1, 1, 1, 2, 2, 2, 2, 3, 3, 3}) {
        std::vector<int64_t> gram;
        do {
          gram.clear();
          for (int64_t k = 0; k < n; ++k) gram.push_back(token(rng));
        } while (!seen.insert(gram).second);
        pool.grams.push_back(gram);
      }
      for (size_t g = 0; g < pool.grams.size(); ++g) pool.columns.push_back(static_cast<int64_t>(g));
      std::shuffle(pool.columns.begin(), pool.columns.end(), rng);
      if (std::string(mode) != "TF")
        for (size_t g = 0; g < pool.grams.size(); ++g) pool.weights.push_back(0.25f * static_cast<float>(g + 1));
      const int64_t J = static_cast<int64_t>(pool.grams.size());
      auto graph = ImportOnnxBytes(Model(c, x, pool).SerializeAsString(), {}, "model.onnx");
      ASSERT_TRUE(graph.ok()) << graph.status();
      auto it = graph->params().find(graph->node(graph->outputs()[0].node).name);
      ASSERT_TRUE(it != graph->params().end()) << "the output did not fold";
      const std::vector<int64_t> shape = batched ? std::vector<int64_t>{c.rows, J} : std::vector<int64_t>{J};
      EXPECT_EQ(it->second.shape, shape);
      const std::vector<float> want = Reference(c, x, pool, J);
      ASSERT_EQ(it->second.NumElements(), static_cast<int64_t>(want.size()));
      for (size_t k = 0; k < want.size(); ++k)
        EXPECT_FLOAT_EQ(it->second.GetDouble(static_cast<int64_t>(k)), want[k])
            << mode << " n " << min_n << ".." << max_n << " skip " << skip << " element " << k;
    }
}

TEST(TfIdfImport, MalformedPoolsAndStringTokensAreRefused) {
  Config c;
  Pool pool{{{1}, {2, 3}}, {0, 1}, {}};
  std::vector<int64_t> x(c.rows * c.length, 1);
  auto error = [&](const onnx::ModelProto& m) {
    auto g = ImportOnnxBytes(m.SerializeAsString(), {}, "model.onnx");
    return g.ok() ? std::string() : std::string(g.status().message());
  };
  onnx::ModelProto m = Model(c, x, pool);
  ASSERT_EQ(error(m), "");
  onnx::ModelProto dup = m;
  dup.mutable_graph()->mutable_node(0)->mutable_attribute(2)->set_ints(1, 0);  // ngram_indexes {0, 0}
  EXPECT_NE(error(dup).find("two n-grams the output column 0"), std::string::npos) << error(dup);
  onnx::ModelProto split = m;
  split.mutable_graph()->mutable_node(0)->mutable_attribute(1)->set_ints(1, 2);  // bigrams from entry 2 of 3
  EXPECT_NE(error(split).find("whole n-grams"), std::string::npos) << error(split);
  onnx::ModelProto strings = m;
  auto* s = strings.mutable_graph()->mutable_node(0)->add_attribute();
  s->set_name("pool_strings");
  s->set_type(onnx::AttributeProto::STRINGS);
  s->add_strings("a");
  EXPECT_NE(error(strings).find("string tokens are not supported"), std::string::npos) << error(strings);
}

}  // namespace
}  // namespace tunefarm::frontend
