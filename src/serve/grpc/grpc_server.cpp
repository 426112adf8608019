#include "serve/grpc/grpc_server.hpp"

#include <grpc_predict_v2.grpc.pb.h>
#include <grpcpp/grpcpp.h>

#include <iostream>

#include "serve/datatype.hpp"
#include "serve/grpc/grpc_tensors.hpp"
#include "serve/grpc/health_service.hpp"
#include "serve/inference.hpp"
#include "serve/metrics.hpp"
#include "serve/repository.hpp"
#include "serve/request_record.hpp"
#include "serve/serve_error.hpp"
#include "serve/tensor_bytes.hpp"

#ifndef TESSERA_SERVE_VERSION
#define TESSERA_SERVE_VERSION "0"
#endif

namespace tessera::serve {
namespace {

namespace pb = inference;

grpc::StatusCode status_code(ErrorCode code) {
  switch (code) {
    case ErrorCode::kInvalidArgument:
      return grpc::StatusCode::INVALID_ARGUMENT;
    case ErrorCode::kNotFound:
      return grpc::StatusCode::NOT_FOUND;
    case ErrorCode::kUnavailable:
      return grpc::StatusCode::UNAVAILABLE;
    case ErrorCode::kResourceExhausted:
      return grpc::StatusCode::RESOURCE_EXHAUSTED;
    case ErrorCode::kDeadlineExceeded:
      return grpc::StatusCode::DEADLINE_EXCEEDED;
    case ErrorCode::kFailedPrecondition:
      return grpc::StatusCode::FAILED_PRECONDITION;
    case ErrorCode::kInternal:
      break;
  }
  return grpc::StatusCode::INTERNAL;
}

// The name of the status codes an inference call can end with.
const char* code_name(grpc::StatusCode code) {
  switch (code) {
    case grpc::StatusCode::OK:
      return "OK";
    case grpc::StatusCode::INVALID_ARGUMENT:
      return "INVALID_ARGUMENT";
    case grpc::StatusCode::NOT_FOUND:
      return "NOT_FOUND";
    case grpc::StatusCode::UNAVAILABLE:
      return "UNAVAILABLE";
    case grpc::StatusCode::RESOURCE_EXHAUSTED:
      return "RESOURCE_EXHAUSTED";
    case grpc::StatusCode::DEADLINE_EXCEEDED:
      return "DEADLINE_EXCEEDED";
    case grpc::StatusCode::FAILED_PRECONDITION:
      return "FAILED_PRECONDITION";
    default:
      return "INTERNAL";
  }
}

// Runs `body`, turning every failure into the call's status; `record`
// (when given) gets the failure.
template <typename F>
grpc::Status guarded(F body, RequestRecord* record = nullptr) {
  try {
    body();
    if (record) record->grpc_code = "OK";
    return grpc::Status::OK;
  } catch (const ServeError& e) {
    if (record) {
      record->status = e.status();
      record->error = e.what();
      record->grpc_code = code_name(status_code(e.code()));
    }
    return grpc::Status(status_code(e.code()), e.what());
  } catch (const std::exception& e) {
    const std::string message = std::string("internal error: ") + e.what();
    if (record) {
      record->status = 500;
      record->error = message;
      record->grpc_code = code_name(grpc::StatusCode::INTERNAL);
    }
    return grpc::Status(grpc::StatusCode::INTERNAL, message);
  }
}

void add_metadata(
    const std::vector<TensorSpec>& specs,
    google::protobuf::RepeatedPtrField<pb::ModelMetadataResponse::TensorMetadata>* to) {
  for (const auto& s : specs) {
    auto* t = to->Add();
    t->set_name(s.name);
    const std::string datatype = protocol_datatype(s.type);
    t->set_datatype(datatype.empty() ? "UNSUPPORTED" : datatype);
    for (int64_t d : s.shape) t->add_shape(d);
  }
}

// The deadline a gRPC client set on the call, on the steady clock.
Clock::time_point call_deadline(const grpc::ServerContext& context) {
  const auto deadline = context.deadline();
  if (deadline == std::chrono::system_clock::time_point::max()) return Clock::time_point::max();
  const auto left = deadline - std::chrono::system_clock::now();
  if (left > std::chrono::hours(24 * 365)) return Clock::time_point::max();
  return Clock::now() + std::chrono::duration_cast<Clock::duration>(left);
}

// The request "timeout" parameter (microseconds), when given.
void read_parameters(const LoadedModel& model, const pb::ModelInferRequest& request,
                     InferRequest& out) {
  const auto& params = request.parameters();
  auto it = params.find("timeout");
  if (it == params.end()) return;
  if (it->second.parameter_choice_case() != pb::InferParameter::kInt64Param)
    throw ServeError(400,
                     "model '" + model.name +
                         "': the \"timeout\" parameter must be an int64_param of microseconds");
  out.deadline =
      std::min(out.deadline, timeout_deadline(model, out.arrival, it->second.int64_param()));
}

// The request's inputs, converted: every one from raw_input_contents, or
// every one from its typed contents.
void read_inputs(const LoadedModel& model, const pb::ModelInferRequest& request,
                 InferRequest& out) {
  const std::string& m = model.name;
  const bool raw = request.raw_input_contents_size() > 0;
  if (raw && request.raw_input_contents_size() != request.inputs_size())
    throw ServeError(400, "model '" + m + "': raw_input_contents has " +
                              std::to_string(request.raw_input_contents_size()) + " entries for " +
                              std::to_string(request.inputs_size()) +
                              " inputs (one per input, in their order)");
  for (int i = 0; i < request.inputs_size(); ++i) {
    const auto& t = request.inputs(i);
    const TensorSpec& spec = input_spec(model, t.name());
    const std::string where = "model '" + m + "', input '" + t.name() + "'";
    for (const auto& given : out.input_names)
      if (given == t.name()) throw ServeError(400, where + " is given twice");
    const CheckedTensor checked =
        check_tensor(t.datatype(), {t.shape().begin(), t.shape().end()}, spec, where);
    if (raw) {
      if (t.has_contents() && t.contents().ByteSizeLong() > 0)
        throw ServeError(400, where +
                                  ": has contents while the request uses raw_input_contents "
                                  "(one or the other for all inputs)");
      out.inputs.push_back(tensor_from_bytes(checked, where,
                                             "raw_input_contents[" + std::to_string(i) + "]",
                                             request.raw_input_contents(i)));
    } else {
      out.inputs.push_back(tensor_from_contents(checked, where, t.contents()));
    }
    out.input_names.push_back(t.name());
  }
}

class Service final : public pb::GRPCInferenceService::Service {
 public:
  Service(ModelRepository& repo, Metrics& metrics, AccessLog& log)
      : repo_(repo), metrics_(metrics), log_(log) {}

  grpc::Status ServerLive(grpc::ServerContext*, const pb::ServerLiveRequest*,
                          pb::ServerLiveResponse* response) override {
    response->set_live(true);
    return grpc::Status::OK;
  }

  grpc::Status ServerReady(grpc::ServerContext*, const pb::ServerReadyRequest*,
                           pb::ServerReadyResponse* response) override {
    return guarded([&] { response->set_ready(repo_.all_ready()); });
  }

  grpc::Status ModelReady(grpc::ServerContext*, const pb::ModelReadyRequest* request,
                          pb::ModelReadyResponse* response) override {
    return guarded([&] { response->set_ready(repo_.ready(request->name(), request->version())); });
  }

  grpc::Status ServerMetadata(grpc::ServerContext*, const pb::ServerMetadataRequest*,
                              pb::ServerMetadataResponse* response) override {
    response->set_name("tessera");
    response->set_version(TESSERA_SERVE_VERSION);
    response->add_extensions("model_repository");
    response->add_extensions("statistics");
    return grpc::Status::OK;
  }

  grpc::Status ModelMetadata(grpc::ServerContext*, const pb::ModelMetadataRequest* request,
                             pb::ModelMetadataResponse* response) override {
    return guarded([&] {
      auto model = repo_.find(request->name(), request->version());
      response->set_name(request->name());
      for (const auto& v : repo_.versions(request->name())) response->add_versions(v);
      response->set_platform("onnx");
      add_metadata(model->inputs, response->mutable_inputs());
      add_metadata(model->outputs, response->mutable_outputs());
    });
  }

  grpc::Status ModelInfer(grpc::ServerContext* context, const pb::ModelInferRequest* request,
                          pb::ModelInferResponse* response) override {
    RequestRecord record("grpc", request->model_name(), request->model_version());
    record.bytes_in = request->ByteSizeLong();
    record.trace.id = request->id();
    grpc::Status status = guarded(
        [&] {
          if (request->model_name().empty())
            throw ServeError(400, "ModelInferRequest: model_name is empty");
          auto model = repo_.find(request->model_name(), request->model_version());
          record.version = model->version;
          record.model_found = true;
          record.served = model;
          infer(*model, *context, *request, *response, record.trace);
        },
        &record);
    if (status.ok()) record.bytes_out = response->ByteSizeLong();
    finish_request(record, metrics_, log_);
    return status;
  }

  grpc::Status RepositoryIndex(grpc::ServerContext*, const pb::RepositoryIndexRequest* request,
                               pb::RepositoryIndexResponse* response) override {
    return guarded([&] {
      for (const auto& e : repo_.index()) {
        if (request->ready() && e.state != "READY") continue;
        auto* m = response->add_models();
        m->set_name(e.name);
        m->set_version(e.version);
        m->set_state(e.state);
        m->set_reason(e.reason);
      }
    });
  }

  grpc::Status RepositoryModelLoad(grpc::ServerContext*,
                                   const pb::RepositoryModelLoadRequest* request,
                                   pb::RepositoryModelLoadResponse*) override {
    return guarded([&] { repo_.load(request->model_name()); });
  }

  grpc::Status RepositoryModelUnload(grpc::ServerContext*,
                                     const pb::RepositoryModelUnloadRequest* request,
                                     pb::RepositoryModelUnloadResponse*) override {
    return guarded([&] { repo_.unload(request->model_name()); });
  }

  grpc::Status ModelStatistics(grpc::ServerContext*, const pb::ModelStatisticsRequest* request,
                               pb::ModelStatisticsResponse* response) override {
    return guarded([&] {
      auto set = [](const ModelStats::DurationStat& d, pb::StatisticDuration* out) {
        out->set_count(d.count);
        out->set_ns(d.ns);
      };
      for (const auto& m : repo_.loaded(request->name(), request->version())) {
        const ModelStats::Snapshot s = m->stats.snapshot();
        auto* out = response->add_model_stats();
        out->set_name(m->name);
        out->set_version(m->version);
        out->set_last_inference(s.last_inference_ms);
        out->set_inference_count(s.inference_count);
        out->set_execution_count(s.execution_count);
        auto* infer = out->mutable_inference_stats();
        set(s.success, infer->mutable_success());
        set(s.fail, infer->mutable_fail());
        set(s.queue, infer->mutable_queue());
        set(s.requests.input, infer->mutable_compute_input());
        set(s.requests.infer, infer->mutable_compute_infer());
        set(s.requests.output, infer->mutable_compute_output());
        infer->mutable_cache_hit();  // no response cache: zero
        for (const auto& [rows, run] : s.per_batch) {
          auto* b = out->add_batch_stats();
          b->set_batch_size(static_cast<uint64_t>(rows));
          set(run.input, b->mutable_compute_input());
          set(run.infer, b->mutable_compute_infer());
          set(run.output, b->mutable_compute_output());
        }
      }
    });
  }

 private:
  static void infer(const LoadedModel& model, const grpc::ServerContext& context,
                    const pb::ModelInferRequest& request, pb::ModelInferResponse& response,
                    RequestTrace& trace) {
    InferRequest req;
    req.id = request.id();
    req.trace = &trace;
    req.deadline = call_deadline(context);
    read_parameters(model, request, req);
    read_inputs(model, request, req);
    for (const auto& o : request.outputs()) req.outputs.push_back({o.name(), false});
    const bool raw_in = request.raw_input_contents_size() > 0;

    std::vector<InferOutput> outputs = run_inference(model, std::move(req));
    // Raw outputs answer raw inputs (as clients that send raw expect), and
    // every output goes raw when one has no typed field (FP16, BF16): the
    // protocol does not mix the two forms in one response.
    bool raw_out = raw_in;
    for (const auto& o : outputs) raw_out = raw_out || !has_typed_contents(o.value.info().type);
    response.set_model_name(model.name);
    response.set_model_version(model.version);
    response.set_id(request.id());
    for (const auto& o : outputs) {
      const api::TensorInfo info = o.value.info();
      const std::string datatype = protocol_datatype(info.type);
      if (datatype.empty())
        throw ServeError(500, "model '" + model.name + "', output '" + o.name +
                                  "' has an element type the protocol cannot carry");
      auto* t = response.add_outputs();
      t->set_name(o.name);
      t->set_datatype(datatype);
      for (int64_t d : info.shape) t->add_shape(d);
      if (raw_out)
        response.add_raw_output_contents(tensor_to_binary(o.value));
      else
        tensor_to_contents(o.value, *t->mutable_contents());
    }
  }

  ModelRepository& repo_;
  Metrics& metrics_;
  AccessLog& log_;
};

class Server final : public GrpcServer {
 public:
  Server(std::unique_ptr<Service> service, std::unique_ptr<HealthService> health,
         std::unique_ptr<grpc::Server> server, int port)
      : service_(std::move(service)),
        health_(std::move(health)),
        server_(std::move(server)),
        port_(port) {}
  ~Server() override { shutdown(std::chrono::milliseconds(0)); }
  int port() const override { return port_; }
  void shutdown(std::chrono::milliseconds grace) override {
    if (!server_) return;
    health_->stop();
    server_->Shutdown(std::chrono::system_clock::now() + grace);
    server_->Wait();
    server_.reset();
  }

 private:
  std::unique_ptr<Service> service_;
  std::unique_ptr<HealthService> health_;
  std::unique_ptr<grpc::Server> server_;
  int port_;
};

}  // namespace

std::unique_ptr<GrpcServer> GrpcServer::start(const std::string& host, int port,
                                              ModelRepository& repository, Metrics& metrics,
                                              AccessLog& log, size_t max_message_bytes) {
  auto service = std::make_unique<Service>(repository, metrics, log);
  auto health = std::make_unique<HealthService>(repository);
  grpc::ServerBuilder builder;
  int bound = 0;
  builder.AddListeningPort(host + ":" + std::to_string(port), grpc::InsecureServerCredentials(),
                           &bound);
  builder.SetMaxReceiveMessageSize(static_cast<int>(
      std::min<size_t>(max_message_bytes, static_cast<size_t>(std::numeric_limits<int>::max()))));
  builder.SetMaxSendMessageSize(-1);
  builder.RegisterService(service.get());
  builder.RegisterService(health.get());
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (!server || bound == 0) {
    std::cerr << "tessera serve: cannot listen for gRPC on " << host << ":" << port << "\n";
    return nullptr;
  }
  return std::make_unique<Server>(std::move(service), std::move(health), std::move(server), bound);
}

}  // namespace tessera::serve
