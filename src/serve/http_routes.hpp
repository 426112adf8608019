// The Open Inference Protocol's REST endpoints (KServe v2) and the model
// repository extension, on an httplib::Server. Every route answers errors as
// {"error": "..."} with the protocol's status; one request's failure never
// reaches another's.
#pragma once
#include <cstddef>

namespace httplib {
class Server;
}

namespace tessera::serve {

class AccessLog;
class Metrics;
class ModelRepository;

// The protocol's endpoints; each inference request is counted in `metrics`
// and written to `log`.
void add_routes(httplib::Server& server, ModelRepository& repository, Metrics& metrics,
                AccessLog& log, size_t max_body_bytes);
// GET /metrics (Prometheus text), for the metrics port.
void add_metrics_routes(httplib::Server& server, const ModelRepository& repository,
                        const Metrics& metrics);

}  // namespace tessera::serve
