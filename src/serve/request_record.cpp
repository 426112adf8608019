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
  if (record.served) {
    const RequestTrace& t = record.trace;
    ModelStats::RunStats run;
    run.input.ns = static_cast<uint64_t>(std::chrono::nanoseconds(t.input).count());
    run.infer.ns = static_cast<uint64_t>(std::chrono::nanoseconds(t.compute).count());
    run.output.ns = static_cast<uint64_t>(std::chrono::nanoseconds(t.output).count());
    record.served->stats.record_request(record.error.empty(), total, t.batch_size, t.run_rows > 0,
                                        t.queue, run);
  }
  log.write(record, total);
}

}  // namespace tessera::serve
