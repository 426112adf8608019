// Float MaxPool, AveragePool and LpPool (1-D, 2-D and 3-D) and the global
// pools run vectorised plane kernels; double inputs keep the generic window
// walker, so the same node in both types checks one against the other.
#include <sstream>

#include "unit/providers/nn_test_helpers.hpp"

namespace tessera::test::nn {
namespace {

Tensor to_double(const Tensor& f) {
  std::vector<double> v(size_t(f.num_elements()));
  for (size_t i = 0; i < v.size(); ++i) v[i] = f.data<float>()[i];
  return Tensor::from_vector(v, f.shape());
}

void expect_float_matches_double(const std::string& op, const Shape& s,
                                 const std::vector<ir::Attribute>& attrs, double tol,
                                 const std::string& what) {
  SCOPED_TRACE(op + " " + s.to_string() + " " + what);
  const Tensor x = f32(random_floats(size_t(s.num_elements()), uint32_t(s.num_elements())), s);
  const Value fast_v = run_node(op, {x}, attrs, 19)[0];
  const Value general_v = run_node(op, {to_double(x)}, attrs, 19)[0];
  const Tensor& fast = fast_v.tensor();
  const Tensor& general = general_v.tensor();
  ASSERT_EQ(fast.dtype(), DataType::kFloat);
  ASSERT_EQ(fast.shape(), general.shape());
  for (int64_t i = 0; i < fast.num_elements(); ++i)
    ASSERT_NEAR(fast.element_as_double(i), general.element_as_double(i), tol) << "at " << i;
}

struct Geo {
  int64_t k, s, pad_begin, pad_end, dil, ceil;
};

const Geo kGeos[] = {{3, 1, 1, 1, 1, 0}, {2, 2, 0, 0, 1, 0}, {3, 2, 1, 1, 1, 1},
                     {3, 2, 0, 1, 1, 1}, {5, 3, 2, 1, 1, 1}, {3, 1, 1, 2, 2, 0},
                     {2, 1, 1, 0, 1, 0}, {4, 4, 1, 2, 1, 1}};

std::string describe(const Geo& g, int64_t cip) {
  std::ostringstream os;
  os << "k" << g.k << " s" << g.s << " pads " << g.pad_begin << "," << g.pad_end << " d" << g.dil
     << " ceil " << g.ceil << " cip " << cip;
  return os.str();
}

TEST(NnPoolPlanes, AveragePool2dMatchesGeneric) {
  for (const Geo& g : kGeos)
    for (int64_t cip : {0, 1})
      for (Shape s : {Shape{1, 3, 11, 13}, Shape{2, 2, 9, 70}, Shape{1, 1, 5, 130}}) {
        // Rows and columns get different geometry, so a swapped axis shows.
        std::vector<ir::Attribute> a = {
            attr_ints("kernel_shape", {g.k, std::max<int64_t>(1, g.k - 1)}),
            attr_ints("strides", {g.s, 1}),
            attr_ints("pads", {g.pad_begin, 0, g.pad_end, 0}),
            attr_ints("dilations", {g.dil, 1}),
            attr_int("ceil_mode", g.ceil),
            attr_int("count_include_pad", cip)};
        expect_float_matches_double("AveragePool", s, a, 1e-5, describe(g, cip) + " mixed");
        a = {attr_ints("kernel_shape", {g.k, g.k}),
             attr_ints("strides", {g.s, g.s}),
             attr_ints("pads", {g.pad_begin, g.pad_begin, g.pad_end, g.pad_end}),
             attr_ints("dilations", {g.dil, g.dil}),
             attr_int("ceil_mode", g.ceil),
             attr_int("count_include_pad", cip)};
        expect_float_matches_double("AveragePool", s, a, 1e-5, describe(g, cip));
      }
}

TEST(NnPoolPlanes, OneDimensionalPoolsMatchGeneric) {
  for (const Geo& g : kGeos)
    for (Shape s : {Shape{1, 4, 37}, Shape{2, 3, 1000}}) {
      std::vector<ir::Attribute> a = {attr_ints("kernel_shape", {g.k}), attr_ints("strides", {g.s}),
                                      attr_ints("pads", {g.pad_begin, g.pad_end}),
                                      attr_ints("dilations", {g.dil}),
                                      attr_int("ceil_mode", g.ceil)};
      expect_float_matches_double("MaxPool", s, a, 0, describe(g, 0));
      for (int64_t cip : {0, 1}) {
        a.push_back(attr_int("count_include_pad", cip));
        expect_float_matches_double("AveragePool", s, a, 1e-5, describe(g, cip));
        a.pop_back();
      }
    }
}

// 3-D pools: depth, rows and columns each get a different geometry from the
// table (so a swapped axis shows), ceil_mode and both divisor rules.
TEST(NnPoolPlanes, ThreeDimensionalPoolsMatchGeneric) {
  const size_t n = std::size(kGeos);
  for (size_t i = 0; i < n; ++i) {
    const Geo& d = kGeos[i];
    const Geo& h = kGeos[(i + 3) % n];
    const Geo& w = kGeos[(i + 5) % n];
    const int64_t ceil = d.ceil;  // one ceil_mode for all three dims
    for (Shape s : {Shape{1, 2, 6, 7, 9}, Shape{2, 1, 9, 5, 70}}) {
      std::vector<ir::Attribute> a = {
          attr_ints("kernel_shape", {d.k, h.k, w.k}), attr_ints("strides", {d.s, h.s, w.s}),
          attr_ints("pads",
                    {d.pad_begin, h.pad_begin, w.pad_begin, d.pad_end, h.pad_end, w.pad_end}),
          attr_ints("dilations", {d.dil, h.dil, w.dil}), attr_int("ceil_mode", ceil)};
      expect_float_matches_double("MaxPool", s, a, 0, describe(d, 0) + " 3-D");
      for (int64_t cip : {0, 1}) {
        a.push_back(attr_int("count_include_pad", cip));
        expect_float_matches_double("AveragePool", s, a, 1e-5, describe(d, cip) + " 3-D");
        a.pop_back();
      }
    }
  }
}

// LpPool (p = 1, 2, 3) in 1, 2 and 3 dims through the sum planes.
TEST(NnPoolPlanes, LpPoolMatchesGeneric) {
  for (const Geo& g : kGeos)
    for (int64_t p : {1, 2, 3})
      for (Shape s : {Shape{1, 3, 37}, Shape{1, 2, 11, 13}, Shape{1, 2, 5, 6, 7}}) {
        const size_t r = s.rank() - 2;
        std::vector<int64_t> pads(r, g.pad_begin);
        pads.insert(pads.end(), r, g.pad_end);
        const std::vector<ir::Attribute> a = {
            attr_ints("kernel_shape", std::vector<int64_t>(r, g.k)),
            attr_ints("strides", std::vector<int64_t>(r, g.s)),
            attr_ints("pads", pads),
            attr_ints("dilations", std::vector<int64_t>(r, g.dil)),
            attr_int("ceil_mode", g.ceil),
            attr_int("p", p)};
        expect_float_matches_double("LpPool", s, a, 2e-5,
                                    describe(g, 0) + " p" + std::to_string(p));
      }
}

TEST(NnPoolPlanes, GlobalPoolsMatchGeneric) {
  for (Shape s : {Shape{1, 5, 7, 7}, Shape{2, 3, 1, 1}, Shape{1, 2, 13}, Shape{1, 3, 56, 57}}) {
    expect_float_matches_double("GlobalMaxPool", s, {}, 0, "");
    expect_float_matches_double("GlobalAveragePool", s, {}, 1e-5, "");
  }
}

TEST(NnPoolPlanes, GlobalMaxPoolPropagatesNaN) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (int at : {0, 5, 17, 40}) {
    std::vector<float> v(41, 1.f);
    v[size_t(at)] = nan;
    const Value y = run_node("GlobalMaxPool", {f32(v, Shape{1, 1, 41})}, {}, 19)[0];
    EXPECT_TRUE(std::isnan(y.tensor().data<float>()[0])) << "NaN at " << at;
  }
}

}  // namespace
}  // namespace tessera::test::nn
