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

class ModelRepository;

void add_routes(httplib::Server& server, ModelRepository& repository, size_t max_body_bytes);

}  // namespace tessera::serve
