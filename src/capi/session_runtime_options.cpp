// What an application changes on a live session: provider dynamic options
// and captured graphs.
#include <map>
#include <string>

#include "capi/api_status.hpp"
#include "capi/convert.hpp"
#include "capi/handles.hpp"

namespace tessera::capi {

OrtStatus* ORT_API_CALL SetEpDynamicOptions(OrtSession* sess, const char* const* keys,
                                            const char* const* values, size_t kv_len) noexcept {
  return guard("SetEpDynamicOptions", [&] {
    need(sess, "session");
    check(kv_len > 0, "kv_len is 0: no options given");
    const auto k = string_list(keys, kv_len, "keys");
    const auto v = string_list(values, kv_len, "values");
    std::map<std::string, std::string> options;
    for (size_t i = 0; i < kv_len; ++i) options[k[i]] = v[i];
    sess->get().set_dynamic_options(options);
  });
}

// Tessera records captured runs per set of input shapes (docs/cuda.md) and
// keeps each recording for the session's life: no annotation ids, and no
// release before the session's.
OrtStatus* ORT_API_CALL SessionReleaseCapturedGraph(OrtSession* session,
                                                    int graph_annotation_id) noexcept {
  OrtStatus* bad = guard("SessionReleaseCapturedGraph", [&] {
    need(session, "session");
    const RunCaptureInfo info = session->get().run_capture();
    check(info.status.rfind("on", 0) == 0, "the session has no captured graph for annotation id ",
          graph_annotation_id, ": it captures no runs (capture status: ", info.status, ")");
  });
  if (bad) return bad;
  return make_status(ORT_NOT_IMPLEMENTED,
                     "SessionReleaseCapturedGraph: Tessera keys its captured runs by input shapes, "
                     "not by annotation id, and frees them with the session; release the session "
                     "to free them");
}

}  // namespace tessera::capi
