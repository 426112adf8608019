// The CUDA data-movement kernels without a GPU: what the provider claims and
// declines (with which reason) for Reshape, Flatten, Squeeze, Unsqueeze,
// Identity, Transpose, Concat, Split, Slice, Gather, Expand, Where and Cast,
// and the strided-copy plans (copy_plan.hpp) checked against direct index
// arithmetic.
#include <cstring>

#include "ops/graph_types.hpp"
#include "providers/cuda/copy_plan.hpp"
#include "unit/providers/test_cuda_util.hpp"

using namespace tessera;
using namespace tessera::test::cuda_test;

namespace {

// A tensor of `t` and `dims` (zeros; claims look only at types and shapes).
Tensor zeros(DataType t, std::vector<int64_t> dims) {
  Tensor out(t, Shape(dims));
  if (out.byte_size() > 0) std::memset(out.mutable_raw_data(), 0, out.byte_size());
  return out;
}
Tensor floats(std::vector<int64_t> dims) { return zeros(DataType::kFloat, dims); }
Tensor i64(std::vector<int64_t> v) {
  return Tensor::from_vector<int64_t>(v, Shape{int64_t(v.size())});
}

}  // namespace

TEST(CudaShapeOpsClaims, ClaimsTheReshapingOps) {
  for (DataType t : {DataType::kFloat, DataType::kInt64, DataType::kBool, DataType::kUInt8,
                     DataType::kFloat16, DataType::kDouble, DataType::kInt4}) {
    OneNode reshape("Reshape", 14, {attr_int("allowzero", 1)});
    reshape.input("x", zeros(t, {2, 3, 4})).input("s", i64({6, 4}), true).output("y");
    EXPECT_EQ(claim(reshape), "") << data_type_name(t);
  }
  OneNode dyn("Reshape", 5);  // the shape as a graph input: read on the host at run time
  dyn.input("x", floats({2, 3})).input("s", i64({3, 2})).output("y");
  EXPECT_EQ(claim(dyn), "");
  OneNode flatten("Flatten", 13, {attr_int("axis", 3)});
  flatten.input("x", floats({2, 3, 4})).output("y");
  EXPECT_EQ(claim(flatten), "");
  OneNode flatten_neg("Flatten", 13, {attr_int("axis", -3)});
  flatten_neg.input("x", floats({2, 3, 4})).output("y");
  EXPECT_EQ(claim(flatten_neg), "");
  OneNode squeeze11("Squeeze", 11, {attr_ints("axes", {1})});
  squeeze11.input("x", floats({2, 1, 4})).output("y");
  EXPECT_EQ(claim(squeeze11), "");
  OneNode squeeze13("Squeeze", 13);
  squeeze13.input("x", floats({2, 1, 4})).input("axes", i64({-2})).output("y");
  EXPECT_EQ(claim(squeeze13), "");
  OneNode squeeze_all("Squeeze", 13);
  squeeze_all.input("x", floats({1, 1})).output("y");
  EXPECT_EQ(claim(squeeze_all), "");
  OneNode unsqueeze11("Unsqueeze", 11, {attr_ints("axes", {0})});
  unsqueeze11.input("x", floats({3})).output("y");
  EXPECT_EQ(claim(unsqueeze11), "");
  OneNode unsqueeze13("Unsqueeze", 13);
  unsqueeze13.input("x", floats({3})).input("axes", i64({0, -1}), true).output("y");
  EXPECT_EQ(claim(unsqueeze13), "");
  OneNode identity("Identity", 16);
  identity.input("x", zeros(DataType::kInt32, {5})).output("y");
  EXPECT_EQ(claim(identity), "");
}

TEST(CudaShapeOpsClaims, ClaimsTheCopyingOps) {
  for (DataType t :
       {DataType::kFloat, DataType::kInt64, DataType::kBool, DataType::kUInt8, DataType::kFloat16,
        DataType::kBFloat16, DataType::kDouble, DataType::kComplex64, DataType::kInt16}) {
    const std::string name(data_type_name(t));
    OneNode tr("Transpose", 13, {attr_ints("perm", {2, 0, 1})});
    tr.input("x", zeros(t, {2, 3, 4})).output("y");
    EXPECT_EQ(claim(tr), "") << name;
    OneNode concat("Concat", 13, {attr_int("axis", -1)});
    concat.input("a", zeros(t, {2, 3})).input("b", zeros(t, {2, 5})).output("y");
    EXPECT_EQ(claim(concat), "") << name;
    OneNode split("Split", 18, {attr_int("axis", 1), attr_int("num_outputs", 2)});
    split.input("x", zeros(t, {2, 5})).output("y0").output("y1");
    EXPECT_EQ(claim(split), "") << name;
    OneNode slice("Slice", 13);
    slice.input("x", zeros(t, {4, 5}))
        .input("starts", i64({1}))
        .input("ends", i64({-1}))
        .input("axes", i64({1}), true)
        .input("steps", i64({2}), true)
        .output("y");
    EXPECT_EQ(claim(slice), "") << name;
    OneNode gather("Gather", 13, {attr_int("axis", -1)});
    gather.input("x", zeros(t, {4, 5}))
        .input("i", Tensor::from_vector<int32_t>({0, -1}, Shape{2}))
        .output("y");
    EXPECT_EQ(claim(gather), "") << name;
    OneNode expand("Expand", 13);
    expand.input("x", zeros(t, {3, 1})).input("s", i64({2, 3, 4}), true).output("y");
    EXPECT_EQ(claim(expand), "") << name;
    OneNode where("Where", 16);
    where.input("c", zeros(DataType::kBool, {2, 1}))
        .input("x", zeros(t, {3}))
        .input("o", zeros(t, {}))
        .output("y");
    EXPECT_EQ(claim(where), "") << name;
  }
  OneNode slice9("Slice", 9, {attr_ints("starts", {0}), attr_ints("ends", {2})});
  slice9.input("x", floats({4, 5})).output("y");
  EXPECT_EQ(claim(slice9), "");
  OneNode slice_i32("Slice", 13);
  slice_i32.input("x", floats({4}))
      .input("starts", Tensor::from_vector<int32_t>({1}, Shape{1}))
      .input("ends", Tensor::from_vector<int32_t>({3}, Shape{1}))
      .output("y");
  EXPECT_EQ(claim(slice_i32), "");
  OneNode split11("Split", 11, {attr_ints("split", {1, 4})});
  split11.input("x", floats({5})).output("a").output("b");
  EXPECT_EQ(claim(split11), "");
  OneNode split13("Split", 13);
  split13.input("x", floats({5})).input("split", i64({2, 3})).output("a").output("b");
  EXPECT_EQ(claim(split13), "");
  OneNode wide_concat("Concat", 13, {attr_int("axis", 0)});  // no rank limit: 2-D copies
  wide_concat.input("a", floats({1, 1, 1, 1, 1, 1, 1, 1, 1, 2}))
      .input("b", floats({1, 1, 1, 1, 1, 1, 1, 1, 1, 2}))
      .output("y");
  EXPECT_EQ(claim(wide_concat), "");
  OneNode gather_wide("Gather", 13, {attr_int("axis", 4)});  // nor here: a 3-D view
  gather_wide.input("x", floats({1, 1, 1, 1, 3, 1, 1, 1, 1, 2})).input("i", i64({2})).output("y");
  EXPECT_EQ(claim(gather_wide), "");
}

TEST(CudaShapeOpsClaims, ClaimsCastBetweenItsTypes) {
  const std::vector<DataType> types = {DataType::kFloat, DataType::kFloat16, DataType::kBFloat16,
                                       DataType::kInt32, DataType::kInt64,   DataType::kBool,
                                       DataType::kInt8,  DataType::kUInt8};
  for (DataType from : types)
    for (DataType to : types) {
      OneNode cast("Cast", 19, {attr_int("to", int64_t(to))});
      cast.input("x", zeros(from, {3})).output("y");
      EXPECT_EQ(claim(cast), "") << data_type_name(from) << " -> " << data_type_name(to);
    }
  OneNode cast6("Cast", 6, {attr_int("to", int64_t(DataType::kInt64))});
  cast6.input("x", floats({3})).output("y");
  EXPECT_EQ(claim(cast6), "");
}

TEST(CudaShapeOpsClaims, DeclinesWithAReason) {
  const std::vector<int64_t> nine = {1, 1, 1, 1, 1, 1, 1, 1, 2};
  OneNode tr9("Transpose", 13);
  tr9.input("x", floats(nine)).output("y");
  expect_has(claim(tr9), "input 0 has rank 9; the CUDA kernel takes at most 8");
  OneNode bad_perm("Transpose", 13, {attr_ints("perm", {0, 0, 1})});
  bad_perm.input("x", floats({2, 3, 4})).output("y");
  expect_has(claim(bad_perm), "is not a permutation of 3 axes");
  OneNode short_perm("Transpose", 13, {attr_ints("perm", {1, 0})});
  short_perm.input("x", floats({2, 3, 4})).output("y");
  expect_has(claim(short_perm), "is not a permutation of 3 axes");
  OneNode slice9("Slice", 13);
  slice9.input("x", floats(nine)).input("s", i64({0})).input("e", i64({1})).output("y");
  expect_has(claim(slice9), "rank 9");
  OneNode expand9("Expand", 13);
  expand9.input("x", floats({2})).input("s", i64(nine), true).output("y");
  expect_has(claim(expand9), "the shape has 9 dims");
  OneNode expand_in9("Expand", 13);
  expand_in9.input("x", floats(nine)).input("s", i64({2})).output("y");
  expect_has(claim(expand_in9), "input 0 has rank 9");
  OneNode where9("Where", 16);
  where9.input("c", zeros(DataType::kBool, {2}))
      .input("x", floats({2}))
      .input("o", floats(nine))
      .output("y");
  expect_has(claim(where9), "input 2 has rank 9");
  OneNode concat0("Concat", 13, {attr_int("axis", 0)});
  concat0.input("a", floats({})).input("b", floats({})).output("y");
  expect_has(claim(concat0), "the inputs are scalars");
  OneNode concat_axis("Concat", 13, {attr_int("axis", 2)});
  concat_axis.input("a", floats({2, 3})).input("b", floats({2, 3})).output("y");
  expect_has(claim(concat_axis), "axis 2 is out of range for rank 2");
  OneNode split_axis("Split", 13, {attr_int("axis", -3)});
  split_axis.input("x", floats({2, 4})).output("a").output("b");
  expect_has(claim(split_axis), "axis -3 is out of range for rank 2");
  OneNode no_axis("Concat", 13);
  no_axis.input("a", floats({2})).input("b", floats({2})).output("y");
  expect_has(claim(no_axis), "the axis attribute is missing");
  OneNode gather0("Gather", 13);
  gather0.input("x", floats({})).input("i", i64({0})).output("y");
  expect_has(claim(gather0), "the data is a scalar");
  OneNode gather_axis("Gather", 13, {attr_int("axis", 2)});
  gather_axis.input("x", floats({2, 3})).input("i", i64({0})).output("y");
  expect_has(claim(gather_axis), "axis 2 is out of range for rank 2");
  OneNode flatten("Flatten", 13, {attr_int("axis", 4)});
  flatten.input("x", floats({2, 3, 4})).output("y");
  expect_has(claim(flatten), "axis 4 is out of range for rank 3");
  OneNode flatten_neg("Flatten", 13, {attr_int("axis", -4)});
  flatten_neg.input("x", floats({2, 3, 4})).output("y");
  expect_has(claim(flatten_neg), "axis -4 is out of range for rank 3");
  OneNode unsqueeze("Unsqueeze", 13);
  unsqueeze.input("x", floats({3})).output("y");
  expect_has(claim(unsqueeze), "the axes input is missing");
  for (DataType to : {DataType::kString, DataType::kFloat8E4M3FN}) {
    OneNode cast("Cast", 19, {attr_int("to", int64_t(to))});
    cast.input("x", floats({3})).output("y");
    expect_has(claim(cast), std::string("Cast to ") + std::string(data_type_name(to)) +
                                ": the CUDA kernel casts between float, float16, bfloat16, "
                                "double, bool and the 8- to 64-bit integers only");
  }
  for (DataType to : {DataType::kDouble, DataType::kInt16, DataType::kUInt16, DataType::kUInt32,
                      DataType::kUInt64}) {
    OneNode cast("Cast", 19, {attr_int("to", int64_t(to))});
    cast.input("x", floats({3})).output("y");
    EXPECT_EQ(claim(cast), "") << "Cast float to " << data_type_name(to);
  }
  OneNode cast_bad("Cast", 13, {attr_int("to", 99)});
  cast_bad.input("x", floats({3})).output("y");
  expect_has(claim(cast_bad), "to=99 is not a data type");
  OneNode from_f8("Cast", 19, {attr_int("to", int64_t(DataType::kFloat))});
  from_f8.input("x", zeros(DataType::kFloat8E5M2, {3})).output("y");
  expect_has(claim(from_f8), "float8e5m2");
  // Types the byte movers cannot move: 16-byte and packed elements.
  OneNode tr_c128("Transpose", 13);
  tr_c128.input("x", zeros(DataType::kComplex128, {2, 2})).output("y");
  expect_has(claim(tr_c128), "complex128");
  OneNode tr_i4("Transpose", 21);
  tr_i4.input("x", zeros(DataType::kInt4, {2, 2})).output("y");
  expect_has(claim(tr_i4), "int4");
  OneNode where_cond("Where", 16);
  where_cond.input("c", zeros(DataType::kUInt8, {2}))
      .input("x", floats({2}))
      .input("o", floats({2}))
      .output("y");
  expect_has(claim(where_cond), "uint8");
  OneNode gather_idx("Gather", 13);
  gather_idx.input("x", floats({3})).input("i", zeros(DataType::kInt16, {1})).output("y");
  expect_has(claim(gather_idx), "int16");
  // Reshape before opset 5 took its shape as an attribute: served too (the
  // CPU provider's view kernel reads either).
  OneNode reshape4("Reshape", 4, {attr_ints("shape", {6})});
  reshape4.input("x", floats({2, 3})).output("y");
  EXPECT_EQ(claim(reshape4), "");
  // Strings never go to the device.
  OneNode strings("Reshape", 14);
  Tensor s(DataType::kString, Shape{2});
  strings.input("x", s)
      .input("shape", Tensor::from_vector<int64_t>({2}, Shape{1}), true)
      .output("y");
  expect_has(claim(strings), "string");
}

TEST(CudaShapeOpsClaims, IdentityDeclinesWhatMayNotBeATensor) {
  OneNode id("Identity", 16);
  id.input("x", floats({3})).output("y");
  // The graph input's type without a shape: a tensor of unknown rank.
  id.model.graph.inputs[0].type = ir::TypeInfo::tensor(DataType::kFloat);
  expect_has(claim(id), "its static rank is not known");
  OneNode old("Identity", 13);  // before 14 Identity takes tensors only
  old.input("x", floats({3})).output("y");
  old.model.graph.inputs[0].type = ir::TypeInfo::tensor(DataType::kFloat);
  EXPECT_EQ(claim(old), "");
}

namespace {

// The offsets of every output element under operand `op` of the plan,
// computed as the device does (shape_ops.cu, offsets()).
std::vector<int64_t> plan_offsets(const cuda::CopyPlan& p, int op) {
  int64_t n = 1;
  for (int d = 0; d < p.rank; ++d) n *= p.dims[d];
  if (p.rank == 0) n = 0;
  std::vector<int64_t> out;
  for (int64_t i = 0; i < n; ++i) {
    int64_t rest = i, off = p.base[op];
    for (int d = p.rank - 1; d >= 0; --d) {
      off += (rest % p.dims[d]) * p.strides[op][d];
      rest /= p.dims[d];
    }
    out.push_back(off);
  }
  return out;
}

// Offsets by direct loops over the (unmerged) output coordinates.
std::vector<int64_t> direct_offsets(const std::vector<int64_t>& dims,
                                    const std::vector<int64_t>& strides, int64_t base) {
  std::vector<int64_t> out;
  const int64_t n = cuda::element_count(dims);
  for (int64_t i = 0; i < n; ++i) {
    int64_t rest = i, off = base;
    for (size_t d = dims.size(); d-- > 0;) {
      off += (rest % dims[d]) * strides[d];
      rest /= dims[d];
    }
    out.push_back(off);
  }
  return out;
}

}  // namespace

TEST(CudaShapeOpsPlans, TransposeMergesRunsThatStayContiguous) {
  using cuda::plan_copy;
  // [2,3,4,5] with perm [0,1,3,2]: the leading [2,3] stays contiguous.
  const std::vector<int64_t> in = {2, 3, 4, 5};
  const auto st = cuda::dense_strides(in);
  EXPECT_EQ(st, (std::vector<int64_t>{60, 20, 5, 1}));
  const std::vector<int64_t> dims = {2, 3, 5, 4}, strides = {60, 20, 1, 5};
  const cuda::CopyPlan p = plan_copy(dims, {{strides, 0, 120}});
  EXPECT_EQ(p.rank, 3);
  EXPECT_EQ(p.dims[0], 6);
  EXPECT_EQ(p.strides[0][0], 20);
  EXPECT_TRUE(p.small);
  EXPECT_EQ(plan_offsets(p, 0), direct_offsets(dims, strides, 0));
  // The identity permutation is one contiguous run.
  const cuda::CopyPlan id = plan_copy(in, {{st, 0, 120}});
  EXPECT_EQ(id.rank, 1);
  EXPECT_EQ(id.dims[0], 120);
  EXPECT_EQ(id.strides[0][0], 1);
  // Dims of size 1 are dropped wherever they are.
  const std::vector<int64_t> ones = {1, 4, 1, 3}, ones_st = {12, 1, 12, 4};
  const cuda::CopyPlan q = plan_copy(ones, {{ones_st, 0, 12}});
  EXPECT_EQ(q.rank, 2);
  EXPECT_EQ(plan_offsets(q, 0), direct_offsets(ones, ones_st, 0));
}

TEST(CudaShapeOpsPlans, SliceWithNegativeStepsAndBase) {
  // x [4,6]; rows 3,1 (step -2), columns 1,2,3: strides [-12, 1], base 3*6 + 1.
  const std::vector<int64_t> dims = {2, 3}, strides = {-12, 1};
  const cuda::CopyPlan p = cuda::plan_copy(dims, {{strides, 19, 24}});
  EXPECT_EQ(p.rank, 2);
  EXPECT_EQ(plan_offsets(p, 0), (std::vector<int64_t>{19, 20, 21, 7, 8, 9}));
  // A whole tensor reversed in both dims merges into one backward run.
  const cuda::CopyPlan r = cuda::plan_copy({3, 4}, {{{-4, -1}, 11, 12}});
  EXPECT_EQ(r.rank, 1);
  EXPECT_EQ(r.strides[0][0], -1);
  EXPECT_EQ(plan_offsets(r, 0), direct_offsets({3, 4}, {-4, -1}, 11));
}

TEST(CudaShapeOpsPlans, BroadcastOperandsForExpandAndWhere) {
  EXPECT_EQ(cuda::broadcast_strides({3, 1}, {2, 3, 4}), (std::vector<int64_t>{0, 1, 0}));
  EXPECT_EQ(cuda::broadcast_strides({}, {2, 3}), (std::vector<int64_t>{0, 0}));
  EXPECT_EQ(cuda::broadcast_strides({2, 3}, {2, 3}), (std::vector<int64_t>{3, 1}));
  EXPECT_THROW(cuda::broadcast_strides({2, 3}, {2, 4}), Error);
  EXPECT_THROW(cuda::broadcast_strides({1, 2, 3}, {2, 3}), Error);
  // Where of c [2,1,4], x [3,1], y [] into [2,3,4].
  const std::vector<int64_t> out = {2, 3, 4};
  const auto sc = cuda::broadcast_strides({2, 1, 4}, out);
  const auto sx = cuda::broadcast_strides({3, 1}, out);
  const auto sy = cuda::broadcast_strides({}, out);
  const cuda::CopyPlan p = cuda::plan_copy(out, {{sc, 0, 8}, {sx, 0, 3}, {sy, 0, 1}});
  EXPECT_EQ(plan_offsets(p, 0), direct_offsets(out, sc, 0));
  EXPECT_EQ(plan_offsets(p, 1), direct_offsets(out, sx, 0));
  EXPECT_EQ(plan_offsets(p, 2), direct_offsets(out, sy, 0));
  // Operands that broadcast the same way merge: [2,3] and [2,3] with a scalar.
  const cuda::CopyPlan m =
      cuda::plan_copy({2, 3}, {{{3, 1}, 0, 6}, {{3, 1}, 0, 6}, {{0, 0}, 0, 1}});
  EXPECT_EQ(m.rank, 1);
  EXPECT_EQ(m.dims[0], 6);
}

TEST(CudaShapeOpsPlans, EdgeShapes) {
  // No elements: rank 0, nothing to walk.
  EXPECT_EQ(cuda::plan_copy({2, 0, 3}, {{{0, 3, 1}, 0, 0}}).rank, 0);
  // A scalar (or all dims 1): one element at the base.
  const cuda::CopyPlan s = cuda::plan_copy({}, {{{}, 5, 6}});
  EXPECT_EQ(s.rank, 1);
  EXPECT_EQ(plan_offsets(s, 0), (std::vector<int64_t>{5}));
  const cuda::CopyPlan ones = cuda::plan_copy({1, 1}, {{{7, 7}, 2, 6}});
  EXPECT_EQ(plan_offsets(ones, 0), (std::vector<int64_t>{2}));
  // Too many dims left after merging: a clear error.
  std::vector<int64_t> dims(9, 2), strides(9);
  for (size_t k = 0; k < 9; ++k) strides[k] = int64_t(1) << (2 * k);  // never mergeable
  try {
    cuda::plan_copy(dims, {{strides, 0, 1 << 18}});
    ADD_FAILURE() << "expected an error";
  } catch (const Error& e) {
    expect_has(e.what(), "needs 9 dims after merging; the CUDA kernels take at most 8");
  }
  // 32-bit index math only while every count is below 2^30.
  EXPECT_TRUE(cuda::plan_copy({1 << 29}, {{{1}, 0, 1 << 29}}).small);
  EXPECT_FALSE(cuda::plan_copy({1 << 30}, {{{1}, 0, 1 << 30}}).small);
  EXPECT_FALSE(cuda::plan_copy({4}, {{{1}, 0, int64_t(1) << 31}}).small);
}

namespace {

// The output of the tiled transpose kernel (shape_ops.cu), every block and
// thread run in turn with the kernel's index arithmetic (one block in each
// grid dim, so the loops over tiles and batches do all the work).
std::vector<int64_t> run_tiles(const cuda::TilePlan& p, const std::vector<int64_t>& x, int64_t n) {
  constexpr int64_t kTile = 32, kTileRows = 8;
  std::vector<int64_t> y(size_t(n), -1), tile(kTile * (kTile + 1));
  const int64_t tiles_r = (p.rows + kTile - 1) / kTile, tiles_c = (p.cols + kTile - 1) / kTile;
  for (int64_t b = 0; b < p.batch; ++b) {
    int64_t in_b = 0, out_b = 0, rest = b;
    for (int d = p.batch_rank - 1; d >= 0; --d) {
      const int64_t c = rest % p.batch_dims[d];
      rest /= p.batch_dims[d];
      in_b += c * p.batch_in[d];
      out_b += c * p.batch_out[d];
    }
    for (int64_t tr = 0; tr < tiles_r; ++tr)
      for (int64_t tc = 0; tc < tiles_c; ++tc) {
        const int64_t r0 = tr * kTile, c0 = tc * kTile;
        for (int64_t ty = 0; ty < kTileRows; ++ty)
          for (int64_t tx = 0; tx < kTile; ++tx)
            for (int64_t k = ty; k < kTile; k += kTileRows) {
              const int64_t r = r0 + tx, c = c0 + k;
              if (r < p.rows && c < p.cols)
                tile[size_t(k * (kTile + 1) + tx)] = x[size_t(in_b + r + c * p.in_col_stride)];
            }
        for (int64_t ty = 0; ty < kTileRows; ++ty)
          for (int64_t tx = 0; tx < kTile; ++tx)
            for (int64_t k = ty; k < kTile; k += kTileRows) {
              const int64_t r = r0 + k, c = c0 + tx;
              if (r < p.rows && c < p.cols)
                y[size_t(out_b + r * p.out_row_stride + c)] = tile[size_t(tx * (kTile + 1) + k)];
            }
      }
  }
  return y;
}

// Transposes iota(dims) by `perm` directly, and through plan_copy + plan_tiles
// + run_tiles; returns whether the tiled form applied.
bool check_tiled_transpose(const std::vector<int64_t>& in, const std::vector<int64_t>& perm) {
  const auto st = cuda::dense_strides(in);
  std::vector<int64_t> dims, strides;
  for (int64_t p : perm) {
    dims.push_back(in[size_t(p)]);
    strides.push_back(st[size_t(p)]);
  }
  const int64_t n = cuda::element_count(in);
  std::vector<int64_t> x(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) x[size_t(i)] = i;
  const cuda::CopyPlan plan = cuda::plan_copy(dims, {{strides, 0, n}});
  const cuda::TilePlan tiles = cuda::plan_tiles(plan);
  if (tiles.rows == 0) return false;
  EXPECT_EQ(tiles.batch * tiles.rows * tiles.cols, n);
  EXPECT_EQ(run_tiles(tiles, x, n), direct_offsets(dims, strides, 0))
      << Shape(in).to_string() << " perm " << Shape(perm).to_string();
  return true;
}

}  // namespace

TEST(CudaShapeOpsPlans, TiledTransposeCoversEveryElementOnce) {
  EXPECT_TRUE(check_tiled_transpose({3, 5}, {1, 0}));
  EXPECT_TRUE(check_tiled_transpose({70, 45}, {1, 0}));  // partial tiles both ways
  EXPECT_TRUE(check_tiled_transpose({2, 33, 65}, {0, 2, 1}));
  EXPECT_TRUE(check_tiled_transpose({2, 3, 4, 5}, {0, 2, 3, 1}));  // NCHW -> NHWC
  EXPECT_TRUE(check_tiled_transpose({2, 4, 5, 3}, {0, 3, 1, 2}));  // NHWC -> NCHW
  EXPECT_TRUE(check_tiled_transpose({3, 4, 5, 6}, {3, 1, 0, 2}));  // rows apart from cols
  EXPECT_TRUE(check_tiled_transpose({2, 3, 4, 5, 6}, {4, 3, 2, 1, 0}));
  // Innermost dim kept (attention's [B,S,H,D] -> [B,H,S,D]): the strided copy.
  EXPECT_FALSE(check_tiled_transpose({2, 3, 4, 5}, {0, 2, 1, 3}));
  EXPECT_FALSE(check_tiled_transpose({4, 5}, {0, 1}));
  // A transpose that merges away (a dim of 1 moved) is a plain copy too.
  EXPECT_FALSE(check_tiled_transpose({1, 7}, {1, 0}));
  // Slice-like plans (negative strides or a base) are never tiled.
  EXPECT_EQ(cuda::plan_tiles(cuda::plan_copy({3, 4}, {{{1, -3}, 9, 12}})).rows, 0);
  EXPECT_EQ(cuda::plan_tiles(cuda::plan_copy({3, 4}, {{{1, 3}, 1, 16}})).rows, 0);
}
