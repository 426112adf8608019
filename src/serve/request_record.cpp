#include "serve/request_record.hpp"

#include "serve/access_log.hpp"
#include "serve/metrics.hpp"

namespace tessera::serve {

RequestRecord::RequestRecord(std::string transport_, std::string model_, std::string version_)
    : transport(std::move(transport_)),
      model(std::move(model_)),
      version(std::move(version_)),
      wall_arrival(std::chrono::system_clock::now()),
      arrival(Clock::now()) {}

void finish_request(const RequestRecord& record, Metrics& metrics, AccessLog& log) {
  const Clock::duration total = Clock::now() - record.arrival;
  if (record.model_found) metrics.record(record, total);
  log.write(record, total);
}

}  // namespace tessera::serve
