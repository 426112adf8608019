// What the schema_<family>.cpp files share: their registration functions
// (called once by schema.cpp) and the small pieces their entries are made
// of. Internal to src/ops/.
#pragma once
#include <string>
#include <vector>

#include "ops/schema.hpp"
#include "ops/window.hpp"

namespace tessera::ops {

void add_elementwise_schemas(std::vector<OpSchema>& t);
void add_shape_op_schemas(std::vector<OpSchema>& t);
void add_tensor_op_schemas(std::vector<OpSchema>& t);
void add_reduce_schemas(std::vector<OpSchema>& t);
void add_nn_schemas(std::vector<OpSchema>& t);
void add_window_schemas(std::vector<OpSchema>& t);  // called by add_nn_schemas
void add_qdq_schemas(std::vector<OpSchema>& t);     // called by add_nn_schemas
void add_quant_schemas(std::vector<OpSchema>& t);
void add_sequence_schemas(std::vector<OpSchema>& t);
void add_control_flow_schemas(std::vector<OpSchema>& t);
void add_ml_schemas(std::vector<OpSchema>& t);
void add_training_schemas(std::vector<OpSchema>& t);
void add_generator_schemas(std::vector<OpSchema>& t);
void add_signal_schemas(std::vector<OpSchema>& t);
void add_image_schemas(std::vector<OpSchema>& t);
void add_index_schemas(std::vector<OpSchema>& t);
void add_recurrent_schemas(std::vector<OpSchema>& t);
void add_norm_loss_schemas(std::vector<OpSchema>& t);
void add_string_schemas(std::vector<OpSchema>& t);
void add_conv_extra_schemas(std::vector<OpSchema>& t);
void add_attention_schemas(std::vector<OpSchema>& t);
void add_contrib_schemas(std::vector<OpSchema>& t);
void add_data_dependent_schemas(std::vector<OpSchema>& t);
void add_contrib_body_schemas(std::vector<OpSchema>& t);

// MatMul's rule over inputs `a` and `b` (schema_nn.cpp), and Conv's over the
// data `x` and the filter `w` (schema_window.cpp), for the quantized forms
// whose operands sit at other positions.
OutShapes matmul_of(const ShapeQuery& q, size_t a, size_t b);
OutShapes gemm_shapes(const ShapeQuery& q);  // Gemm's (schema_nn.cpp)
OutShapes conv_of(const ShapeQuery& q, size_t x, size_t w);
std::vector<AttrDef> conv_attrs();
// The window attributes of a node with `sp` spatial dims, defaults filled in
// (kernel_shape from the filter `w`'s dims when absent); fails naming the node.
WindowSpec window_spec(const ShapeQuery& q, size_t sp, const Shape* w);

namespace schema {

// Attributes, with the default an absent one stands for.
AttrDef int_attr(std::string name, int64_t def);
AttrDef float_attr(std::string name, float def);
AttrDef string_attr(std::string name, std::string def);
AttrDef ints_attr(std::string name, std::vector<int64_t> def = {});
AttrDef strings_attr(std::string name, std::vector<std::string> def);
AttrDef required_attr(std::string name, ir::AttrType type);
// Declared without a default: absent means "not given" (a list attribute
// such as ML's coefficients, a dtype that falls back to the input's).
AttrDef optional_attr(std::string name, ir::AttrType type);

// Element type sets of the type constraints.
const std::vector<DataType>& float_types();    // float, double, float16, bfloat16
const std::vector<DataType>& numeric_types();  // float_types and every integer type
const std::vector<DataType>& all_types();      // every tensor element type
// The spec's "all tensor types" of opset 13: every integer, float, double,
// float16, bfloat16, string, bool, complex64 and complex128 (no 8-, 4- or
// 2-bit types).
const std::vector<DataType>& standard_types();
const std::vector<DataType>& integer_types();  // the eight integer types
const std::vector<DataType>& string_type();
const std::vector<DataType>& float_type();  // float alone
const std::vector<DataType>& bool_type();
const std::vector<DataType>& int64_type();
const std::vector<DataType>& index_types();   // int32, int64
const std::vector<DataType>& int8_types();    // int8, uint8
const std::vector<DataType>& float8_types();  // the four 8-bit float types
// What DequantizeLinear dequantizes: every integer type of 16 bits or less,
// int32, and the 8- and 4-bit floats.
const std::vector<DataType>& quantized_types();
// T over every input and output.
TypeParam same_type(const std::vector<DataType>& allowed);

// Type rules.
std::vector<ir::TypeInfo> type_of_input0(const ir::Node&, int64_t,
                                         const std::vector<ir::TypeInfo>& in);
std::vector<ir::TypeInfo> type_of_input1(const ir::Node&, int64_t,
                                         const std::vector<ir::TypeInfo>& in);
std::vector<ir::TypeInfo> bool_outputs(const ir::Node& n, int64_t,
                                       const std::vector<ir::TypeInfo>&);
std::vector<ir::TypeInfo> int64_outputs(const ir::Node& n, int64_t,
                                        const std::vector<ir::TypeInfo>&);
// Output 0 typed like input 0, the others int64 (MaxPool's, TopK's indices).
std::vector<ir::TypeInfo> input0_then_int64(const ir::Node& n, int64_t,
                                            const std::vector<ir::TypeInfo>& in);

// The node's attribute `name` as a data type (Cast's `to`, `dtype`), or `def`
// when absent or not a valid type.
DataType attr_dtype(const ir::Node& n, const char* name, DataType def);
// The declared output types of the node's graph attribute `name`.
std::vector<ir::TypeInfo> graph_output_types(const ir::Node& n, const char* name);

// Shape rules every family uses.
OutShapes same_shape_as_input0(const ShapeQuery& q);  // every output
// For ops whose outputs are not tensors, or whose shapes depend on the
// values of data inputs or on a subgraph: nothing is known statically.
OutShapes unknown_shapes(const ShapeQuery& q);
OutShapes broadcast_inputs(const ShapeQuery& q);  // multidirectional

// Axis `a` of rank `r` made non-negative; fails naming `what` and input 0.
size_t axis_in(const ShapeQuery& q, int64_t a, int64_t r, const char* what = "axis");
// Input i's shape, or null when it is absent or unknown.
inline const Shape* shape_of(const ShapeQuery& q, size_t i) {
  return q.has_input(i) ? q.shape(i) : nullptr;
}
// Every input's shape; false when one is absent or unknown.
bool all_input_shapes(const ShapeQuery& q, std::vector<Shape>* out);

}  // namespace schema
}  // namespace tessera::ops
