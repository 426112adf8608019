// grpc.health.v1.Health (src/serve/proto/health.proto) on the repository:
// the service "" (the whole server) and "inference.GRPCInferenceService" are
// SERVING when every model not unloaded on request has loaded (as
// GET /v2/health/ready), a model's name is SERVING when a version of it is
// loaded, and anything else is unknown. Once stop() is called every status is
// NOT_SERVING and open Watch streams end, so they do not hold up the drain.
#pragma once
#include <health.grpc.pb.h>

#include <condition_variable>
#include <mutex>
#include <string>

namespace tessera::serve {

class ModelRepository;

class HealthService final : public grpc::health::v1::Health::Service {
 public:
  explicit HealthService(const ModelRepository& repository) : repo_(repository) {}

  grpc::Status Check(grpc::ServerContext* context,
                     const grpc::health::v1::HealthCheckRequest* request,
                     grpc::health::v1::HealthCheckResponse* response) override;
  grpc::Status Watch(grpc::ServerContext* context,
                     const grpc::health::v1::HealthCheckRequest* request,
                     grpc::ServerWriter<grpc::health::v1::HealthCheckResponse>* writer) override;

  void stop();

 private:
  using Status = grpc::health::v1::HealthCheckResponse::ServingStatus;
  Status status_of(const std::string& service) const;

  const ModelRepository& repo_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
};

}  // namespace tessera::serve
