#include "serve/grpc/health_service.hpp"

#include <chrono>

#include "serve/repository.hpp"
#include "serve/serve_error.hpp"

namespace tessera::serve {
namespace {

using grpc::health::v1::HealthCheckResponse;

// The service name of the Open Inference Protocol (grpc_predict_v2.proto).
constexpr const char* kInferenceService = "inference.GRPCInferenceService";

// How often a Watch looks at the repository for a change to send.
constexpr auto kWatchPeriod = std::chrono::milliseconds(100);

}  // namespace

HealthCheckResponse::ServingStatus HealthService::status_of(const std::string& service) const {
  if (service.empty() || service == kInferenceService)
    return repo_.all_ready() ? HealthCheckResponse::SERVING : HealthCheckResponse::NOT_SERVING;
  try {
    return repo_.ready(service, "") ? HealthCheckResponse::SERVING
                                    : HealthCheckResponse::NOT_SERVING;
  } catch (const ServeError&) {
    return HealthCheckResponse::SERVICE_UNKNOWN;  // no such model
  }
}

grpc::Status HealthService::Check(grpc::ServerContext*,
                                  const grpc::health::v1::HealthCheckRequest* request,
                                  HealthCheckResponse* response) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (stopping_) {
      response->set_status(HealthCheckResponse::NOT_SERVING);
      return grpc::Status::OK;
    }
  }
  const Status status = status_of(request->service());
  if (status == HealthCheckResponse::SERVICE_UNKNOWN)
    return grpc::Status(grpc::StatusCode::NOT_FOUND,
                        "unknown service '" + request->service() + "' (the server is \"\" or " +
                            kInferenceService + "; a model is its name)");
  response->set_status(status);
  return grpc::Status::OK;
}

grpc::Status HealthService::Watch(grpc::ServerContext* context,
                                  const grpc::health::v1::HealthCheckRequest* request,
                                  grpc::ServerWriter<HealthCheckResponse>* writer) {
  bool sent = false;
  Status last = HealthCheckResponse::UNKNOWN;
  std::unique_lock<std::mutex> lock(mutex_);
  while (!context->IsCancelled()) {
    const bool stopping = stopping_;
    lock.unlock();
    const Status now = stopping ? HealthCheckResponse::NOT_SERVING : status_of(request->service());
    if (!sent || now != last) {
      HealthCheckResponse response;
      response.set_status(now);
      if (!writer->Write(response)) return grpc::Status::OK;  // the client left
      sent = true;
      last = now;
    }
    if (stopping) return grpc::Status::OK;
    lock.lock();
    wake_.wait_for(lock, kWatchPeriod);
  }
  return grpc::Status::CANCELLED;
}

void HealthService::stop() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
}

}  // namespace tessera::serve
