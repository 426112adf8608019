#include "providers/onednn/dnnl_common.hpp"

#include <omp.h>

#include <atomic>

namespace tessera::onednn {

namespace {

Dims to_dims(const std::vector<int64_t>& dims) {
  if (dims.empty()) return {1};
  return Dims(dims.begin(), dims.end());
}

Dims row_major_strides(const Dims& d) {
  Dims s(d.size(), 1);
  for (size_t i = d.size(); i-- > 1;) s[i - 1] = s[i] * std::max<int64_t>(d[i], 1);
  return s;
}

// Scratchpads live per thread: a primitive may run on several threads at
// once, and a steady-state run should not allocate.
std::vector<char>& thread_scratch(size_t bytes) {
  thread_local std::vector<char> buf;
  if (buf.size() < bytes) buf.resize(bytes);
  return buf;
}

// With the OpenMP runtime, a primitive uses omp_get_max_threads() of the
// calling thread. The setting is per thread, so we set it around each call
// and restore it (other code on this thread keeps its own setting).
class ThreadScope {
 public:
  explicit ThreadScope(int n) : prev_(n > 0 ? omp_get_max_threads() : 0) {
    if (n > 0 && n != prev_)
      omp_set_num_threads(n);
    else
      prev_ = 0;
  }
  ~ThreadScope() {
    if (prev_ > 0) omp_set_num_threads(prev_);
  }
  ThreadScope(const ThreadScope&) = delete;
  ThreadScope& operator=(const ThreadScope&) = delete;

 private:
  int prev_;
};

// The intra-op thread count of the session whose kernel runs on this thread
// (set by DnnlKernel::compute): oneDNN's threads follow it unless the
// provider's num_threads option says otherwise, so a session never runs more
// threads than it was given.
thread_local int t_session_threads = 0;

class SessionThreads {
 public:
  explicit SessionThreads(int n) : prev_(t_session_threads) { t_session_threads = n; }
  ~SessionThreads() { t_session_threads = prev_; }
  SessionThreads(const SessionThreads&) = delete;
  SessionThreads& operator=(const SessionThreads&) = delete;

 private:
  int prev_;
};

std::atomic<int> g_last_call_threads{0};  // for dnnl_last_call_threads()

dnnl::stream& thread_stream(const dnnl::engine& engine) {
  thread_local std::unique_ptr<dnnl::stream> s;
  if (!s || s->get_engine() != engine) s = std::make_unique<dnnl::stream>(engine);
  return *s;
}

}  // namespace

int dnnl_last_call_threads() { return g_last_call_threads.load(); }

dnnl::memory::desc plain_desc(const std::vector<int64_t>& dims) {
  Dims d = to_dims(dims);
  return dnnl::memory::desc(d, DType::f32, row_major_strides(d));
}

dnnl::memory::desc transposed_desc(const std::vector<int64_t>& dims) {
  Dims d = to_dims(dims);
  size_t r = d.size();
  Dims stored = d;
  std::swap(stored[r - 1], stored[r - 2]);
  Dims s = row_major_strides(stored);
  std::swap(s[r - 1], s[r - 2]);
  return dnnl::memory::desc(d, DType::f32, s);
}

dnnl::memory wrap(const dnnl::memory::desc& md, const DnnlEnv& env, const void* data) {
  return dnnl::memory(md, env.engine, const_cast<void*>(data));
}

dnnl::primitive_attr base_attr(const DnnlEnv& env, bool allow_bf16) {
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  if (allow_bf16 && env.bf16) attr.set_fpmath_mode(dnnl::fpmath_mode::bf16);
  return attr;
}

void execute(const DnnlEnv& env, const dnnl::primitive& prim, const dnnl::memory::desc& scratch,
             std::unordered_map<int, dnnl::memory> args) {
  size_t bytes = scratch.get_size();
  if (bytes)
    args[DNNL_ARG_SCRATCHPAD] = dnnl::memory(scratch, env.engine, thread_scratch(bytes).data());
  ThreadScope threads(env.num_threads > 0 ? env.num_threads : t_session_threads);
  g_last_call_threads.store(omp_get_max_threads(), std::memory_order_relaxed);
  auto& s = thread_stream(env.engine);
  prim.execute(s, args);
  s.wait();
}

void reorder(const DnnlEnv& env, const dnnl::memory& src, const dnnl::memory& dst) {
  dnnl::reorder::primitive_desc pd(src, dst, base_attr(env));
  execute(env, dnnl::reorder(pd), pd.scratchpad_desc(), {{DNNL_ARG_FROM, src}, {DNNL_ARG_TO, dst}});
}

std::vector<int64_t> shape_key(std::initializer_list<const Tensor*> tensors) {
  std::vector<int64_t> key;
  for (const Tensor* t : tensors) {
    if (!t) {
      key.push_back(-1);
      continue;
    }
    key.push_back(int64_t(t->rank()));
    for (int64_t d : t->shape().dims()) key.push_back(d);
  }
  return key;
}

void DnnlKernel::compute(ep::KernelContext& ctx) const {
  SessionThreads session(ctx.thread_pool().num_threads());
  try {
    run(ctx);
  } catch (const dnnl::error& e) {
    fail(ErrorCode::kRuntimeException, node_.describe(), ": oneDNN: ", e.what(), " (status ",
         int(e.status), ")");
  }
}

}  // namespace tessera::onednn
