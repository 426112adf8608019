#include "serve/http_routes.hpp"

#include <httplib.h>

#include <nlohmann/json.hpp>
#include <string_view>

#include "serve/datatype.hpp"
#include "serve/infer_json.hpp"
#include "serve/metrics.hpp"
#include "serve/repository.hpp"
#include "serve/request_record.hpp"
#include "serve/serve_error.hpp"
#include "serve/stats_json.hpp"

#ifndef TESSERA_SERVE_VERSION
#define TESSERA_SERVE_VERSION "0"
#endif

namespace tessera::serve {
namespace {

using nlohmann::json;

// Model paths: /v2/models/NAME[/versions/VERSION]<suffix>
std::string model_route(const std::string& suffix) {
  return R"(/v2/models/([^/]+)(?:/versions/([^/]+))?)" + suffix;
}

void send_json(httplib::Response& res, int status, const json& body) {
  res.status = status;
  res.set_content(body.dump(), "application/json");
}

void send_error(httplib::Response& res, int status, const std::string& message) {
  send_json(res, status, json{{"error", message}});
}

// Runs `handler`, turning every failure into the protocol's error answer.
template <typename F>
httplib::Server::Handler guarded(F handler) {
  return [handler](const httplib::Request& req, httplib::Response& res) {
    try {
      handler(req, res);
    } catch (const ServeError& e) {
      send_error(res, e.status(), e.what());
    } catch (const std::exception& e) {
      send_error(res, 500, std::string("internal error: ") + e.what());
    }
  };
}

constexpr const char* kHeaderLength = "Inference-Header-Content-Length";

json parse_json(std::string_view body, const std::string& what, bool allow_empty) {
  if (body.empty()) {
    if (allow_empty) return json::object();
    throw ServeError(400, what + ": the request has no body");
  }
  try {
    return json::parse(body);
  } catch (const json::parse_error& e) {
    throw ServeError(400, what + ": the request body is not valid JSON: " + e.what());
  }
}

json tensor_metadata(const std::vector<TensorSpec>& specs) {
  json list = json::array();
  for (const auto& s : specs) {
    std::string datatype = protocol_datatype(s.type);
    list.push_back({{"name", s.name},
                    {"datatype", datatype.empty() ? "UNSUPPORTED" : datatype},
                    {"shape", s.shape}});
  }
  return list;
}

// Answers an inference request for `model` named `name`.
void answer_infer(const httplib::Request& req, httplib::Response& res, const std::string& name,
                  const LoadedModel& model, RequestTrace& trace) {
  // The binary tensor data extension: the JSON header is the body's
  // first Inference-Header-Content-Length bytes, binary data follows.
  std::string_view body = req.body, binary;
  if (req.has_header(kHeaderLength)) {
    const std::string text = req.get_header_value(kHeaderLength);
    size_t n = 0;
    try {
      size_t used = 0;
      n = std::stoull(text, &used);
      if (used != text.size() || text[0] == '-') throw std::invalid_argument(text);
    } catch (const std::exception&) {
      throw ServeError(
          400, "model '" + name + "': " + kHeaderLength + " '" + text + "' is not a byte count");
    }
    if (n > body.size())
      throw ServeError(400, "model '" + name + "': " + kHeaderLength + " " + text +
                                " exceeds the body's " + std::to_string(body.size()) + " bytes");
    binary = body.substr(n);
    body = body.substr(0, n);
  }
  const json request = parse_json(body, "model '" + name + "'", false);
  InferResult result = infer_json(model, request, binary, &trace);
  std::string header = result.header.dump();
  if (result.binary.empty() && binary.empty() && !req.has_header(kHeaderLength)) {
    res.status = 200;
    res.body = std::move(header);
    res.set_header("Content-Type", "application/json");
    return;
  }
  res.status = 200;
  res.set_header(kHeaderLength, std::to_string(header.size()));
  // The body is built in place: set_content would copy the joined string
  // once more, and binary outputs (a batch's logits, hidden states) can be
  // megabytes.
  res.body.reserve(header.size() + result.binary.size());
  res.body.append(header).append(result.binary);
  res.set_header("Content-Type",
                 result.binary.empty() ? "application/json" : "application/octet-stream");
}

}  // namespace

void add_routes(httplib::Server& server, ModelRepository& repo, Metrics& metrics, AccessLog& log,
                size_t max_body_bytes) {
  server.set_payload_max_length(max_body_bytes);
  server.set_error_handler([max_body_bytes](const httplib::Request& req, httplib::Response& res) {
    if (!res.body.empty()) return;
    if (res.status == 413)
      send_error(res, 413,
                 "the request body is larger than the server's limit of " +
                     std::to_string(max_body_bytes) + " bytes (--max-body-bytes)");
    else if (res.status == 404)
      send_error(res, 404, "no endpoint " + req.method + " " + req.path);
    else if (res.status == 400)
      send_error(res, 400,
                 "malformed HTTP request to " + req.path +
                     " (a POST without a body needs Content-Length: 0)");
    else
      send_error(res, res.status, "HTTP " + std::to_string(res.status));
  });
  server.set_exception_handler(
      [](const httplib::Request&, httplib::Response& res, std::exception_ptr ep) {
        try {
          if (ep) std::rethrow_exception(ep);
        } catch (const std::exception& e) {
          send_error(res, 500, std::string("internal error: ") + e.what());
        } catch (...) {
          send_error(res, 500, "internal error");
        }
      });

  server.Get("/v2/health/live",
             [](const httplib::Request&, httplib::Response& res) { res.status = 200; });
  server.Get("/v2/health/ready", [&repo](const httplib::Request&, httplib::Response& res) {
    res.status = repo.all_ready() ? 200 : 400;
  });
  server.Get("/v2", [](const httplib::Request&, httplib::Response& res) {
    send_json(res, 200,
              json{{"name", "tessera"},
                   {"version", TESSERA_SERVE_VERSION},
                   {"extensions",
                    json::array({"model_repository", "binary_tensor_data", "statistics"})}});
  });

  // The statistics extension. Registered before the model routes, which
  // would otherwise take "stats" for a model name.
  server.Get("/v2/models/stats", guarded([&repo](const httplib::Request&, httplib::Response& res) {
               send_json(res, 200, stats_json(repo.loaded()));
             }));
  server.Get(model_route("/stats"),
             guarded([&repo](const httplib::Request& req, httplib::Response& res) {
               send_json(res, 200, stats_json(repo.loaded(req.matches[1], req.matches[2])));
             }));

  server.Get(model_route(""), guarded([&repo](const httplib::Request& req, httplib::Response& res) {
               const std::string name = req.matches[1];
               const std::string version = req.matches[2];
               auto model = repo.find(name, version);
               send_json(res, 200,
                         json{{"name", name},
                              {"versions", repo.versions(name)},
                              {"platform", "onnx"},
                              {"inputs", tensor_metadata(model->inputs)},
                              {"outputs", tensor_metadata(model->outputs)}});
             }));
  server.Get(model_route("/ready"),
             guarded([&repo](const httplib::Request& req, httplib::Response& res) {
               res.status = repo.ready(req.matches[1], req.matches[2]) ? 200 : 400;
             }));
  server.Post(model_route("/infer"),
              [&repo, &metrics, &log](const httplib::Request& req, httplib::Response& res) {
                RequestRecord record("http", req.matches[1], req.matches[2]);
                record.bytes_in = req.body.size();
                try {
                  auto model = repo.find(record.model, record.version);
                  record.version = model->version;
                  record.model_found = true;
                  record.served = model;
                  answer_infer(req, res, record.model, *model, record.trace);
                } catch (const ServeError& e) {
                  record.status = e.status();
                  record.error = e.what();
                  send_error(res, e.status(), e.what());
                } catch (const std::exception& e) {
                  record.status = 500;
                  record.error = std::string("internal error: ") + e.what();
                  send_error(res, 500, record.error);
                }
                record.bytes_out = res.body.size();
                finish_request(record, metrics, log);
              });

  server.Post("/v2/repository/index",
              guarded([&repo](const httplib::Request& req, httplib::Response& res) {
                const json request = parse_json(req.body, "repository index", true);
                const bool only_ready = request.is_object() && request.value("ready", false);
                json list = json::array();
                for (const auto& e : repo.index()) {
                  if (only_ready && e.state != "READY") continue;
                  json entry = {{"name", e.name}, {"version", e.version}, {"state", e.state}};
                  if (!e.reason.empty()) entry["reason"] = e.reason;
                  list.push_back(std::move(entry));
                }
                send_json(res, 200, list);
              }));
  server.Post(R"(/v2/repository/models/([^/]+)/load)",
              guarded([&repo](const httplib::Request& req, httplib::Response& res) {
                repo.load(req.matches[1]);
                res.status = 200;
              }));
  server.Post(R"(/v2/repository/models/([^/]+)/unload)",
              guarded([&repo](const httplib::Request& req, httplib::Response& res) {
                repo.unload(req.matches[1]);
                res.status = 200;
              }));
}

void add_metrics_routes(httplib::Server& server, const ModelRepository& repo,
                        const Metrics& metrics) {
  server.Get("/metrics", [&repo, &metrics](const httplib::Request&, httplib::Response& res) {
    res.status = 200;
    res.set_content(metrics.prometheus_text(repo), "text/plain; version=0.0.4");
  });
}

}  // namespace tessera::serve
