// Image ops: resampling (Resize, Upsample, GridSample, AffineGrid), regions
// (RoiAlign, MaxRoiPool, CenterCropPad) and block rearrangements
// (DepthToSpace, SpaceToDepth, Col2Im). Sizes computed from float scales
// are left to the kernels (the rule reads integer inputs only).
#include "ops/schema_families.hpp"

namespace tessera::ops {

namespace {

using namespace schema;
using ir::AttrType;

int64_t checked_mul(const ShapeQuery& q, int64_t a, int64_t b, const char* what) {
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r)) q.fail(what, " overflows int64 for ", q.input_desc(0));
  return r;
}

// Upsample-7's scales attribute: floor(dim * scale), in double from the float.
OutShapes upsample(const ShapeQuery& q) {
  const Shape* x = shape_of(q, 0);
  const ir::Attribute* a = q.node().attr("scales");
  if (!x || !a) return {};
  if (a->floats.size() != x->rank())
    q.fail("scales has ", a->floats.size(), " values for ", q.input_desc(0));
  std::vector<int64_t> out = x->dims();
  for (size_t i = 0; i < out.size(); ++i) {
    const double len = double(out[i]) * double(a->floats[i]);
    if (!(len >= 0 && len < 0x1p62)) q.fail("scale ", a->floats[i], " gives no valid size");
    out[i] = int64_t(len);
  }
  return {Shape(out)};
}

// Resize from opset 11: `sizes` (input 3) stretched onto `axes` (every axis
// before opset 18); sizes from scales, or kept to an aspect ratio, are the
// kernel's.
OutShapes resize(const ShapeQuery& q) {
  const Shape* x = shape_of(q, 0);
  if (!x || !q.has_input(3)) return {};
  auto sizes = q.ints(3);
  if (!sizes || sizes->empty()) return {};
  if (const Shape* scales = shape_of(q, 2); q.has_input(2) && (!scales || scales->num_elements()))
    return {};  // scales given too: the kernel reports it
  const int64_t r = int64_t(x->rank());
  std::vector<int64_t> axes;
  if (q.schema().attr_def("axes") && q.has_attr("axes")) {
    if (q.attr_string("keep_aspect_ratio_policy") != "stretch") return {};
    for (int64_t a : q.attr_ints("axes")) axes.push_back(int64_t(axis_in(q, a, r)));
  } else {
    if (q.schema().attr_def("keep_aspect_ratio_policy") &&
        q.attr_string("keep_aspect_ratio_policy") != "stretch")
      return {};
    for (int64_t k = 0; k < r; ++k) axes.push_back(k);
  }
  if (sizes->size() != axes.size())
    q.fail("sizes ", Shape(*sizes).to_string(), " need ", axes.size(), " values for ",
           q.input_desc(0));
  std::vector<int64_t> out = x->dims();
  for (size_t i = 0; i < axes.size(); ++i) {
    if ((*sizes)[i] < 0) q.fail("sizes ", Shape(*sizes).to_string(), " hold a negative size");
    out[size_t(axes[i])] = (*sizes)[i];
  }
  return {Shape(out)};
}

// X [N, C, spatial...], grid [N, out spatial..., r-2] -> [N, C, out spatial...]
OutShapes grid_sample(const ShapeQuery& q) {
  const Shape* x = shape_of(q, 0);
  const Shape* g = shape_of(q, 1);
  if (!x || !g) return {};
  if (x->rank() < 3 || g->rank() != x->rank() || (*g)[0] != (*x)[0] ||
      (*g)[g->rank() - 1] != int64_t(x->rank()) - 2)
    q.fail("grid ", q.input_desc(1), " does not fit ", q.input_desc(0));
  std::vector<int64_t> out = {(*x)[0], (*x)[1]};
  out.insert(out.end(), g->dims().begin() + 1, g->dims().end() - 1);
  return {Shape(out)};
}

// theta [N, 2, 3] with size [N, C, H, W] -> [N, H, W, 2]; 3-D: [N, D, H, W, 3].
OutShapes affine_grid(const ShapeQuery& q) {
  auto size = q.ints(1);
  if (!size) return {};
  if (size->size() != 4 && size->size() != 5)
    q.fail("size ", Shape(*size).to_string(), " must be [N, C, H, W] or [N, C, D, H, W]");
  if (const Shape* theta = shape_of(q, 0)) {
    const int64_t k = int64_t(size->size()) - 2;
    if (theta->rank() != 3 || (*theta)[1] != k || (*theta)[2] != k + 1)
      q.fail(q.input_desc(0), " is not the theta of a ", k, "-D grid");
  }
  std::vector<int64_t> out = {(*size)[0]};
  out.insert(out.end(), size->begin() + 2, size->end());
  out.push_back(int64_t(size->size()) - 2);
  for (int64_t d : out)
    if (d < 0) q.fail("size ", Shape(*size).to_string(), " holds a negative size");
  return {Shape(out)};
}

// [num_rois, C, h, w] from X [N, C, H, W] and rois [num_rois, k].
OutShapes rois_pooled(const ShapeQuery& q, int64_t h, int64_t w, int64_t roi_width) {
  const Shape* x = shape_of(q, 0);
  const Shape* rois = shape_of(q, 1);
  if (!x || !rois) return {};
  if (x->rank() != 4) q.fail("X must be [N, C, H, W]: ", q.input_desc(0));
  if (rois->rank() != 2 || (*rois)[1] != roi_width)
    q.fail("rois must be [num_rois, ", roi_width, "]: ", q.input_desc(1));
  if (h < 0 || w < 0) q.fail("output size ", h, "x", w, " is negative");
  return {Shape{(*rois)[0], (*x)[1], h, w}};
}

OutShapes roi_align(const ShapeQuery& q) {
  return rois_pooled(q, q.attr_int("output_height"), q.attr_int("output_width"), 4);
}

OutShapes max_roi_pool(const ShapeQuery& q) {
  const std::vector<int64_t> p = q.attr_ints("pooled_shape");
  if (p.size() != 2) q.fail("pooled_shape ", Shape(p).to_string(), " must hold 2 values");
  return rois_pooled(q, p[0], p[1], 5);
}

// The dims at `axes` (every axis by default) become `shape`'s.
OutShapes center_crop_pad(const ShapeQuery& q) {
  const Shape* x = shape_of(q, 0);
  auto shape = q.ints(1);
  if (!x || !shape) return {};
  const int64_t r = int64_t(x->rank());
  std::vector<int64_t> axes = q.attr_ints("axes");
  if (axes.empty())
    for (int64_t k = 0; k < r; ++k) axes.push_back(k);
  if (shape->size() != axes.size())
    q.fail("shape ", Shape(*shape).to_string(), " needs ", axes.size(), " values for ",
           q.input_desc(0));
  std::vector<int64_t> out = x->dims();
  for (size_t i = 0; i < axes.size(); ++i) {
    if ((*shape)[i] < 0) q.fail("shape ", Shape(*shape).to_string(), " has a negative size");
    out[axis_in(q, axes[i], r)] = (*shape)[i];
  }
  return {Shape(out)};
}

// [N, C, H, W] -> [N, C / b^2, H * b, W * b]; SpaceToDepth the reverse.
OutShapes space_depth(const ShapeQuery& q, bool to_space) {
  const Shape* x = shape_of(q, 0);
  if (!x) return {};
  const int64_t b = q.attr_int("blocksize");
  if (b <= 0) q.fail("blocksize ", b, " is not positive");
  if (x->rank() != 4) q.fail("expected a 4-D input: ", q.input_desc(0));
  const int64_t n = (*x)[0], c = (*x)[1], h = (*x)[2], w = (*x)[3];
  const int64_t bb = checked_mul(q, b, b, "blocksize^2");
  if (to_space) {
    if (c % bb != 0)
      q.fail("the channels of ", q.input_desc(0), " are not divisible by blocksize^2 = ", bb);
    return {Shape{n, c / bb, checked_mul(q, h, b, "H * blocksize"),
                  checked_mul(q, w, b, "W * blocksize")}};
  }
  if (h % b != 0 || w % b != 0)
    q.fail("the spatial dims of ", q.input_desc(0), " are not divisible by blocksize ", b);
  return {Shape{n, checked_mul(q, c, bb, "C * blocksize^2"), h / b, w / b}};
}

OutShapes depth_to_space(const ShapeQuery& q) { return space_depth(q, true); }
OutShapes space_to_depth(const ShapeQuery& q) { return space_depth(q, false); }

// input [N, C * prod(block_shape), L] -> [N, C, image_shape...]
OutShapes col2im(const ShapeQuery& q) {
  const Shape* x = shape_of(q, 0);
  auto image = q.ints(1);
  auto block = q.ints(2);
  if (!x || !image || !block) return {};
  if (x->rank() != 3) q.fail("input must be [N, C * prod(block_shape), L]: ", q.input_desc(0));
  if (image->size() != block->size() || image->empty())
    q.fail("image_shape ", Shape(*image).to_string(), " and block_shape ",
           Shape(*block).to_string(), " must have one value per spatial axis");
  int64_t k = 1;
  for (int64_t d : *block) {
    if (d <= 0) q.fail("block_shape ", Shape(*block).to_string(), " must be positive");
    k = checked_mul(q, k, d, "prod(block_shape)");
  }
  if ((*x)[1] % k != 0)
    q.fail("dim 1 of ", q.input_desc(0), " is not a multiple of prod(block_shape) = ", k);
  std::vector<int64_t> out = {(*x)[0], (*x)[1] / k};
  for (int64_t d : *image) {
    if (d < 0) q.fail("image_shape ", Shape(*image).to_string(), " has a negative size");
    out.push_back(d);
  }
  return {Shape(out)};
}

}  // namespace

void add_image_schemas(std::vector<OpSchema>& t) {
  const TypeParam any = same_type(standard_types());
  t.push_back({"",
               "Upsample",
               7,
               {string_attr("mode", "nearest"), required_attr("scales", AttrType::kFloats)},
               {any},
               type_of_input0,
               upsample});
  t.push_back({"",
               "Upsample",
               9,
               {string_attr("mode", "nearest")},
               {any},
               type_of_input0,
               unknown_shapes});  // scales is a float input
  t.push_back(
      {"", "Resize", 10, {string_attr("mode", "nearest")}, {any}, type_of_input0, unknown_shapes});
  std::vector<AttrDef> resize_attrs = {string_attr("coordinate_transformation_mode", "half_pixel"),
                                       float_attr("cubic_coeff_a", -0.75f),
                                       int_attr("exclude_outside", 0),
                                       float_attr("extrapolation_value", 0.0f),
                                       string_attr("mode", "nearest"),
                                       string_attr("nearest_mode", "round_prefer_floor")};
  const std::vector<TypeParam> resize_types = {
      any, {"T2", {1}, {}, {DataType::kFloat16, DataType::kFloat, DataType::kDouble}}};
  t.push_back({"", "Resize", 11, resize_attrs, resize_types, type_of_input0, resize});
  resize_attrs.push_back(int_attr("antialias", 0));
  resize_attrs.push_back(optional_attr("axes", AttrType::kInts));
  resize_attrs.push_back(string_attr("keep_aspect_ratio_policy", "stretch"));
  t.push_back({"", "Resize", 18, resize_attrs, resize_types, type_of_input0, resize});

  const std::vector<TypeParam> grid_types = {{"T1", {0}, {0}, standard_types()},
                                             {"T2", {1}, {}, float_types()}};
  // Opset 20 renamed the modes (bilinear -> linear, bicubic -> cubic).
  t.push_back({"",
               "GridSample",
               16,
               {int_attr("align_corners", 0), string_attr("mode", "bilinear"),
                string_attr("padding_mode", "zeros")},
               grid_types,
               type_of_input0,
               grid_sample});
  t.push_back({"",
               "GridSample",
               20,
               {int_attr("align_corners", 0), string_attr("mode", "linear"),
                string_attr("padding_mode", "zeros")},
               grid_types,
               type_of_input0,
               grid_sample});
  t.push_back({"",
               "AffineGrid",
               20,
               {int_attr("align_corners", 0)},
               {{"T1", {0}, {0}, float_types()}, {"T2", {1}, {}, int64_type()}},
               type_of_input0,
               affine_grid});

  std::vector<AttrDef> roi = {string_attr("mode", "avg"), int_attr("output_height", 1),
                              int_attr("output_width", 1), int_attr("sampling_ratio", 0),
                              float_attr("spatial_scale", 1.0f)};
  const std::vector<TypeParam> roi_types = {{"T1", {0, 1}, {0}, float_types()},
                                            {"T2", {2}, {}, int64_type()}};
  t.push_back({"", "RoiAlign", 10, roi, roi_types, type_of_input0, roi_align});
  roi.push_back(string_attr("coordinate_transformation_mode", "half_pixel"));  // opset 16
  t.push_back({"", "RoiAlign", 16, roi, roi_types, type_of_input0, roi_align});
  t.push_back({"",
               "MaxRoiPool",
               1,
               {required_attr("pooled_shape", AttrType::kInts), float_attr("spatial_scale", 1.0f)},
               {same_type(float_types())},
               type_of_input0,
               max_roi_pool});
  t.push_back({"",
               "CenterCropPad",
               18,
               {ints_attr("axes")},
               {{"T", {0}, {0}, standard_types()}, {"Tind", {1}, {}, index_types()}},
               type_of_input0,
               center_crop_pad});
  const AttrDef block = required_attr("blocksize", AttrType::kInt);
  t.push_back({"", "DepthToSpace", 1, {block}, {any}, type_of_input0, depth_to_space});
  t.push_back({"",
               "DepthToSpace",
               11,
               {block, string_attr("mode", "DCR")},
               {any},
               type_of_input0,
               depth_to_space});
  t.push_back({"", "SpaceToDepth", 1, {block}, {any}, type_of_input0, space_to_depth});
  t.push_back({"",
               "Col2Im",
               18,
               {ints_attr("dilations"), ints_attr("pads"), ints_attr("strides")},
               {{"T", {0}, {0}, standard_types()}, {"image_shape", {1, 2}, {}, int64_type()}},
               type_of_input0,
               col2im});
}

}  // namespace tessera::ops
