#include "unit/runtime/fake_device.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <functional>
#include <mutex>
#include <set>

#include "ep/provider_abilities.hpp"
#include "ep/provider_registry.hpp"
#include "unit/kernel_test_util.hpp"

namespace tessera::test_device {

ir::ValueInfo tensor_info(const std::string& name, std::vector<int64_t> dims, DataType t) {
  std::vector<ir::Dim> d;
  for (int64_t v : dims) d.push_back(ir::Dim{v, ""});
  return ir::ValueInfo{name, ir::TypeInfo::tensor(t, d), ""};
}

namespace {

class TrackingAllocator : public CpuAllocator {
 public:
  TrackingAllocator() : CpuAllocator(fake_device_memory()) {}
  void* alloc(size_t bytes) override {
    void* p = CpuAllocator::alloc(bytes);
    std::lock_guard<std::mutex> lock(mu_);
    live_.insert(p);
    return p;
  }
  void free(void* p) override {
    {
      std::lock_guard<std::mutex> lock(mu_);
      live_.erase(p);
    }
    CpuAllocator::free(p);
  }
  bool owns(const void* p) {
    std::lock_guard<std::mutex> lock(mu_);
    return live_.count(const_cast<void*>(p)) > 0;
  }

 private:
  std::mutex mu_;
  std::set<void*> live_;
};

std::shared_ptr<TrackingAllocator>& device_allocator() {
  static auto a = std::make_shared<TrackingAllocator>();
  return a;
}

// Work queued on the stream runs at synchronize(), so a test can see that
// an asynchronous copy or kernel has not happened before it. A failure of
// queued work surfaces there, as a device error does.
// While capturing, queued work is recorded instead (CUDA graphs' model), and
// waiting for the stream breaks the capture.
class FakeStream : public ep::Stream {
 public:
  void enqueue(std::function<void()> fn) {
    std::lock_guard<std::mutex> lock(mu_);
    (capturing_ ? recorded_ : queue_).push_back(std::move(fn));
  }
  void synchronize() override {
    // One caller drains the queue at a time, so work runs in the order it
    // was queued whoever waits: a second thread's synchronize() (parallel
    // execution mode) must not run its own copy while the first is still
    // running the kernel queued before it. A device stream is in order.
    std::lock_guard<std::mutex> draining(drain_mu_);
    std::vector<std::function<void()>> work;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (capturing_) {
        capture_broken_ = true;
        fail(ErrorCode::kEPFail, "fake device: synchronize during a capture");
      }
      work.swap(queue_);
    }
    for (auto& fn : work) fn();
  }
  void begin_capture() {
    std::lock_guard<std::mutex> lock(mu_);
    if (capturing_) fail(ErrorCode::kEPFail, "fake device: already capturing");
    capturing_ = true;
    capture_broken_ = false;
    recorded_.clear();
  }
  std::vector<std::function<void()>> end_capture() {
    std::lock_guard<std::mutex> lock(mu_);
    if (!capturing_) fail(ErrorCode::kEPFail, "fake device: not capturing");
    capturing_ = false;
    if (capture_broken_) fail(ErrorCode::kEPFail, "fake device: the capture was broken");
    return std::move(recorded_);
  }

 private:
  std::mutex mu_, drain_mu_;
  std::vector<std::function<void()>> queue_, recorded_;
  bool capturing_ = false, capture_broken_ = false;
};

class FakeCapturedRun : public ep::CapturedRun {
 public:
  explicit FakeCapturedRun(std::vector<std::function<void()>> work) : work_(std::move(work)) {}
  void replay(ep::Stream& stream) const override {
    ++fake_stream_stats().replays;
    for (const auto& fn : work_) dynamic_cast<FakeStream&>(stream).enqueue(fn);
  }

 private:
  std::vector<std::function<void()>> work_;
};

// Runs a kernel's work now, or queues it on the run's stream (an
// asynchronous fake device). Queued work captures raw pointers, as device
// kernels do, so it does not keep the buffers alive: a block freed before
// the queue runs is seen as such (fake_device_owns).
void on_stream(const ep::KernelContext& ctx, std::function<void()> fn) {
  if (auto* s = dynamic_cast<FakeStream*>(ctx.stream())) {
    ++fake_stream_stats().queued_kernels;
    s->enqueue(std::move(fn));
    return;
  }
  fn();
}

// Fails queued work whose input block was given back before it ran.
void check_live(const void* p, const char* what) {
  if (!fake_device_owns(p))
    fail(ErrorCode::kRuntimeException, "fake device: ", what,
         " was freed before the queued kernel read it");
}

class FakeTransfer : public ep::DataTransfer {
 public:
  bool can_copy(const MemoryInfo& s, const MemoryInfo& d) const override {
    const bool sd = s.same_space(fake_device_memory()), dd = d.same_space(fake_device_memory());
    return (sd && (dd || d.host_accessible())) || (dd && s.host_accessible());
  }
  void copy_tensors(const std::vector<const Tensor*>& src, const std::vector<Tensor*>& dst,
                    ep::Stream* stream) const override {
    for (size_t i = 0; i < src.size(); ++i) {
      const bool sd = src[i]->memory_info().same_space(fake_device_memory());
      const bool dd = dst[i]->memory_info().same_space(fake_device_memory());
      (sd && dd ? fake_transfers().d2d : sd ? fake_transfers().d2h : fake_transfers().h2d)++;
    }
    if (auto* fs = dynamic_cast<FakeStream*>(stream)) {
      // As a device copy does: the addresses now, the bytes when it runs.
      for (size_t i = 0; i < src.size(); ++i) {
        check(src[i]->dtype() != DataType::kString && src[i]->byte_size() == dst[i]->byte_size(),
              "fake device: bad queued copy ", i);
        const bool from_device = src[i]->memory_info().same_space(fake_device_memory());
        fs->enqueue([from = src[i]->raw_data(), to = dst[i]->mutable_raw_data(),
                     n = src[i]->byte_size(), from_device] {
          if (from_device) check_live(from, "a copy's source");
          if (n) std::memcpy(to, from, n);
        });
      }
      return;
    }
    ep::HostDataTransfer().copy_tensors(src, dst, nullptr);
  }
};

std::atomic<const void*>& relu_input() {
  static std::atomic<const void*> p{nullptr};
  return p;
}

class DeviceRelu : public ep::OpKernel {
 public:
  explicit DeviceRelu(const ep::KernelInfo&) {}
  void compute(ep::KernelContext& ctx) const override {
    const Tensor& x = ctx.required_input(0);
    if (!fake_device_owns(x.raw_data())) ctx.fail_node("input is not in device memory");
    relu_input() = x.raw_data();
    Tensor& y = ctx.output(0, x.shape());
    const float* in = x.data<float>();
    float* out = y.mutable_data<float>();
    on_stream(ctx, [in, out, n = x.num_elements()] {
      check_live(in, "Relu's input");
      for (int64_t i = 0; i < n; ++i) out[i] = std::max(0.0f, in[i]);
    });
  }
};

// Waits for its stream before returning, as a kernel that reads a device
// value back to the host does (a data-dependent check): it breaks captures.
class DeviceNeg : public ep::OpKernel {
 public:
  explicit DeviceNeg(const ep::KernelInfo&) {}
  void compute(ep::KernelContext& ctx) const override {
    const Tensor& x = ctx.required_input(0);
    Tensor& y = ctx.output(0, x.shape());
    const float* in = x.data<float>();
    float* out = y.mutable_data<float>();
    on_stream(ctx, [in, out, n = x.num_elements()] {
      check_live(in, "Neg's input");
      for (int64_t i = 0; i < n; ++i) out[i] = -in[i];
    });
    if (ctx.stream()) ctx.stream()->synchronize();
  }
};

// Reads its shape (input 1) on the host, as its KernelDef's host_inputs ask.
class DeviceReshape : public ep::OpKernel {
 public:
  explicit DeviceReshape(const ep::KernelInfo&) {}
  void compute(ep::KernelContext& ctx) const override {
    const Tensor& x = ctx.required_input(0);
    const Tensor& shape = ctx.required_input(1);
    if (!fake_device_owns(x.raw_data())) ctx.fail_node("input 0 is not in device memory");
    if (!shape.memory_info().host_accessible() || fake_device_owns(shape.raw_data()))
      ctx.fail_node("the shape is not in host memory");
    std::vector<int64_t> dims(shape.data<int64_t>(), shape.data<int64_t>() + shape.num_elements());
    Tensor& y = ctx.output(0, Shape(dims));
    if (y.num_elements() != x.num_elements()) ctx.fail_node("element counts differ");
    const float* in = x.data<float>();
    float* out = y.mutable_data<float>();
    on_stream(ctx, [in, out, n = x.num_elements()] {
      check_live(in, "Reshape's input");
      std::copy_n(in, n, out);
    });
  }
};

class FakeDeviceProvider : public ep::ExecutionProvider,
                           public ep::RunStreamProvider,
                           public ep::RunCapturer {
 public:
  FakeDeviceProvider(bool async, bool capture) : async_(async), capture_(capture) {
    registry_.add<DeviceRelu>({"", "Relu", 1, ep::kOpsetMax, {{"T", {0}, {DataType::kFloat}}}});
    registry_.add<DeviceNeg>({"", "Neg", 1, ep::kOpsetMax, {{"T", {0}, {DataType::kFloat}}}});
    registry_.add<DeviceReshape>({"",
                                  "Reshape",
                                  14,
                                  ep::kOpsetMax,
                                  {{"T", {0}, {DataType::kFloat}}},
                                  /*host_inputs=*/{1}});
  }
  const std::string& name() const override { return name_; }
  const MemoryInfo& memory_info() const override { return info_; }
  std::shared_ptr<Allocator> allocator() const override { return device_allocator(); }
  const ep::KernelRegistry& kernel_registry() const override { return registry_; }
  const ep::DataTransfer* data_transfer() const override { return &transfer_; }
  std::unique_ptr<ep::Stream> create_stream() const override {
    return std::make_unique<FakeStream>();
  }
  std::unique_ptr<ep::Stream> run_stream(const std::map<std::string, std::string>*) const override {
    if (!async_) return nullptr;
    ++fake_stream_stats().run_streams;
    return std::make_unique<FakeStream>();
  }
  bool capture_runs() const override { return capture_; }
  void begin_capture(ep::Stream& stream) const override {
    dynamic_cast<FakeStream&>(stream).begin_capture();
  }
  std::unique_ptr<ep::CapturedRun> end_capture(ep::Stream& stream) const override {
    auto work = dynamic_cast<FakeStream&>(stream).end_capture();
    ++fake_stream_stats().captures;
    return std::make_unique<FakeCapturedRun>(std::move(work));
  }

 private:
  bool async_, capture_;
  std::string name_ = kFakeDevice;
  MemoryInfo info_ = fake_device_memory();
  ep::KernelRegistry registry_;
  FakeTransfer transfer_;
};

class FakeFactory : public ep::ProviderFactory {
 public:
  const std::string& name() const override { return name_; }
  bool is_available(std::string*) const override { return true; }
  std::shared_ptr<ep::ExecutionProvider> create(const ep::ProviderOptions& o) const override {
    ep::check_option_keys(name_, o, {"async", "capture"});
    auto flag = [&o](const char* key) { return o.count(key) && o.at(key) == "1"; };
    return std::make_shared<FakeDeviceProvider>(flag("async") || flag("capture"), flag("capture"));
  }

 private:
  std::string name_ = kFakeDevice;
};

}  // namespace

MemoryInfo fake_device_memory() {
  return make_memory_info("FakeDevice", DeviceType::kGPU, 0xFA4E, 0);
}

StreamStats& fake_stream_stats() {
  static StreamStats s;
  return s;
}

TransferCounts& fake_transfers() {
  static TransferCounts c;
  return c;
}

bool fake_device_owns(const void* p) { return device_allocator()->owns(p); }

const void* last_device_relu_input() { return relu_input().load(); }

void register_fake_device() {
  auto& r = ep::ProviderRegistry::instance();
  if (!r.find(kFakeDevice)) r.add(std::make_shared<FakeFactory>());
}

ir::Node node(const std::string& op, std::vector<std::string> in, std::vector<std::string> out) {
  return test::make_node(op, std::move(in), std::move(out));
}

namespace {

ir::ValueInfo float2(const std::string& name) {
  std::vector<ir::Dim> dims = {ir::Dim{2, ""}};
  return {name, ir::TypeInfo::tensor(DataType::kFloat, dims), ""};
}

}  // namespace

ir::Model relu_chain_model() {
  ir::Model m;
  m.ir_version = 8;
  m.opset_imports.push_back({"", 17});
  m.graph.inputs.push_back(float2("x"));
  m.graph.nodes = {node("Relu", {"x"}, {"r"}), node("Relu", {"r"}, {"y"})};
  m.graph.outputs.push_back(float2("y"));
  return m;
}

ir::Model relu_add_model() {
  ir::Model m;
  m.ir_version = 8;
  m.opset_imports.push_back({"", 17});
  m.graph.inputs.push_back(float2("x"));
  m.graph.initializers["w"] = Tensor::from_vector<float>({10, 20}, Shape{2});
  m.graph.nodes = {node("Relu", {"x"}, {"r"}), node("Add", {"r", "w"}, {"y"})};
  m.graph.outputs.push_back(float2("y"));
  return m;
}

ir::Model relu_chain_model(int relus, int64_t n) {
  ir::Model m;
  m.ir_version = 8;
  m.opset_imports.push_back({"", 17});
  std::vector<ir::Dim> dims = {n < 0 ? ir::Dim{std::nullopt, "n"} : ir::Dim{n, ""}};
  m.graph.inputs.push_back({"x", ir::TypeInfo::tensor(DataType::kFloat, dims), ""});
  std::string in = "x";
  for (int i = 0; i < relus; ++i) {
    std::string out = i + 1 == relus ? std::string("y") : str_cat("r", i);
    m.graph.nodes.push_back(node("Relu", {in}, {out}));
    in = out;
  }
  m.graph.outputs.push_back({"y", ir::TypeInfo::tensor(DataType::kFloat, dims), ""});
  return m;
}

std::unique_ptr<Session> fake_session(ir::Model m, const std::string& mode,
                                      const SessionOptions& o) {
  register_fake_device();
  return Session::create_from_model(std::move(m), o,
                                    {{kFakeDevice, {{mode, "1"}}}, {"CPUExecutionProvider", {}}});
}

std::vector<float> ramp(int64_t n, float offset) {
  std::vector<float> v;
  for (int64_t i = 0; i < n; ++i) v.push_back(float(i % 7) - 3 + offset);
  return v;
}

std::vector<float> relu(std::vector<float> v) {
  for (auto& x : v) x = std::max(0.0f, x);
  return v;
}

std::string error_of(const std::function<void()>& fn, ErrorCode expected) {
  try {
    fn();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), expected) << e.what();
    return e.what();
  }
  ADD_FAILURE() << "expected an error";
  return "";
}

std::vector<float> floats(const Tensor& t) {
  std::vector<float> v(size_t(t.num_elements()));
  Tensor h = t;
  if (!t.memory_info().host_accessible()) {
    h = Tensor(t.dtype(), t.shape());
    ep::HostDataTransfer().copy_tensors({&t}, {&h}, nullptr);  // fake device memory is host memory
  }
  for (size_t i = 0; i < v.size(); ++i) v[i] = h.data<float>()[i];
  return v;
}

}  // namespace tessera::test_device
