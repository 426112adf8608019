// The kernel of a custom-op node: checks the node against the op's inputs
// (arity, variadic minimum and homogeneity), creates the op's kernel object
// (CreateKernelV2 or CreateKernel), and runs it on each call with an
// OrtKernelContext over the node's values.
#include "capi/api_status.hpp"
#include "capi/convert.hpp"
#include "capi/custom_ops.hpp"

namespace tessera::capi {

namespace {

ErrorCode from_ort_code(OrtErrorCode code) {
  switch (code) {
    case ORT_INVALID_ARGUMENT:
      return ErrorCode::kInvalidArgument;
    case ORT_NO_SUCHFILE:
      return ErrorCode::kNoSuchFile;
    case ORT_NOT_IMPLEMENTED:
      return ErrorCode::kNotImplemented;
    case ORT_RUNTIME_EXCEPTION:
      return ErrorCode::kRuntimeException;
    case ORT_INVALID_GRAPH:
      return ErrorCode::kInvalidGraph;
    default:
      return ErrorCode::kFail;
  }
}

// Throws the op's status (and frees it), prefixed with the call and, when
// given, the node.
void throw_status(OrtStatus* st, const ir::Node* node, const char* call) {
  if (!st) return;
  OrtStatus s = std::move(*st);
  delete st;
  fail(from_ort_code(s.code), node ? node->describe() + ": " : std::string(), call,
       " failed: ", s.message);
}

class CustomOpKernel : public ep::OpKernel {
 public:
  CustomOpKernel(std::shared_ptr<const CustomOpSpec> spec, const ep::KernelInfo& info,
                 const std::map<std::string, std::string>& config)
      : spec_(std::move(spec)) {
    const ir::Node& node = info.node();
    check_arity(info);
    std::vector<DataType> in_types;
    for (size_t i = 0; i < info.num_inputs(); ++i) in_types.push_back(info.input_type(i));
    for (size_t k = 0; k < info.num_outputs(); ++k) {
      DataType t = custom_op_output_type(*spec_, k, in_types);
      if (t == DataType::kUndefined) t = info.output_type(k);
      output_types_.push_back(t);
    }
    info_.info = &info;
    info_.session_config = std::make_shared<const std::map<std::string, std::string>>(config);
    info_.since_version = spec_->since;
    info_.logger.tag = str_cat("custom op ", node.describe());
    const OrtCustomOp* op = spec_->op;
    if (spec_->v2) {
      throw_status(op->CreateKernelV2(op, spec_->api, &info_, &kernel_), nullptr, "CreateKernelV2");
    } else {
      try {
        kernel_ = op->CreateKernel(op, spec_->api, &info_);
      } catch (const std::exception& e) {  // a C++ library's exception, not let through
        fail(ErrorCode::kFail, "CreateKernel failed: ", e.what());
      }
    }
  }
  ~CustomOpKernel() override {
    if (spec_->op->KernelDestroy) spec_->op->KernelDestroy(kernel_);
  }

  void compute(ep::KernelContext& ctx) const override {
    OrtKernelContext c;
    c.ctx = &ctx;
    c.logger = &info_.logger;
    c.output_types = &output_types_;
    c.inputs.resize(ctx.num_inputs());
    c.outputs.resize(ctx.num_outputs());
    const OrtCustomOp* op = spec_->op;
    if (spec_->v2) {
      throw_status(op->KernelComputeV2(kernel_, &c), &ctx.node(), "KernelComputeV2");
      return;
    }
    try {
      op->KernelCompute(kernel_, &c);
    } catch (const Error&) {
      throw;
    } catch (const std::exception& e) {
      fail(ErrorCode::kFail, ctx.node().describe(), ": KernelCompute failed: ", e.what());
    }
  }

 private:
  // The node's inputs and outputs against the op's: no more than declared
  // unless the last is variadic, the required inputs present, a variadic
  // input's minimum arity, a homogeneous variadic input's values of one
  // type. (The plan names the node in front of these messages.)
  void check_arity(const ep::KernelInfo& info) const {
    const auto& formals = spec_->inputs;
    const size_t n = info.num_inputs();
    const bool variadic =
        !formals.empty() && formals.back().characteristic == INPUT_OUTPUT_VARIADIC;
    const size_t fixed = variadic ? formals.size() - 1 : formals.size();
    const auto& outs = spec_->outputs;
    const bool variadic_out = !outs.empty() && outs.back().characteristic == INPUT_OUTPUT_VARIADIC;
    if (!variadic_out && info.num_outputs() > outs.size())
      fail(ErrorCode::kInvalidArgument, "the node has ", info.num_outputs(),
           " outputs but custom op '", spec_->name, "' gives at most ", outs.size());
    if (!variadic && n > formals.size())
      fail(ErrorCode::kInvalidArgument, "the node has ", n, " inputs but custom op '", spec_->name,
           "' takes at most ", formals.size());
    for (size_t i = 0; i < fixed; ++i)
      if (formals[i].characteristic == INPUT_OUTPUT_REQUIRED && !info.has_input(i))
        fail(ErrorCode::kInvalidArgument, "the node lacks input ", i, ", which custom op '",
             spec_->name, "' requires");
    if (!variadic) return;
    const size_t count = n > fixed ? n - fixed : 0;
    if (count < size_t(spec_->variadic_input_min))
      fail(ErrorCode::kInvalidArgument, "the node has ", count, " values for the variadic input ",
           fixed, " of custom op '", spec_->name, "', which needs at least ",
           spec_->variadic_input_min);
    if (!spec_->variadic_input_homogeneous) return;
    DataType first = DataType::kUndefined;
    for (size_t i = fixed; i < n; ++i) {
      DataType t = info.input_type(i);
      if (t == DataType::kUndefined) continue;
      if (first == DataType::kUndefined) first = t;
      if (t != first)
        fail(ErrorCode::kInvalidArgument, "input ", i, " has type ", data_type_name(t),
             " but the variadic input of custom op '", spec_->name, "' is homogeneous and input ",
             fixed, " has type ", data_type_name(first));
    }
  }

  std::shared_ptr<const CustomOpSpec> spec_;
  OrtKernelInfo info_;
  std::vector<DataType> output_types_;
  void* kernel_ = nullptr;
};

}  // namespace

std::unique_ptr<ep::OpKernel> make_custom_op_kernel(
    std::shared_ptr<const CustomOpSpec> spec, const ep::KernelInfo& info,
    const std::map<std::string, std::string>& session_config) {
  return std::make_unique<CustomOpKernel>(std::move(spec), info, session_config);
}

}  // namespace tessera::capi
