// The workers behind RunAsync: one process-wide queue served by a fixed set of
// threads (one per core), so a burst of asynchronous runs queues instead of
// starting a thread per call.
#pragma once
#include <functional>

namespace tessera::capi {

// Queues `task` to run on an async-run worker. Tasks start in the order they
// were queued; as many run at once as there are workers.
void post_async_run(std::function<void()> task);

}  // namespace tessera::capi
