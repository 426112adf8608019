/* Tessera's own C table, beside ONNX Runtime's (which stays as ONNX Runtime
 * defines it): what Tessera can tell about a session and this machine that
 * OrtApi has no entry for. Versioned the same way: TesseraGetApiBase()->
 * GetApi(v) returns the table for every v from 1 to TESSERA_API_VERSION and
 * NULL above; entries are only ever appended. */
#ifndef TESSERA_TESSERA_C_API_H
#define TESSERA_TESSERA_C_API_H

#include "tessera/onnxruntime_c_api.h"

#define TESSERA_API_VERSION 2

#ifdef __cplusplus
extern "C" {
#endif

typedef enum TesseraReportFormat {
  TESSERA_REPORT_TEXT = 0, /* a table per node and a summary */
  TESSERA_REPORT_JSON = 1,
  TESSERA_REPORT_DOT = 2, /* Graphviz, nodes coloured by provider */
} TesseraReportFormat;

typedef struct TesseraApi {
  /* API version 1 */
  /* Where every node of the session runs, why each earlier provider declined
   * it, and the copies between memory spaces. *out is allocated with
   * `allocator` (the caller frees it there). */
  OrtStatus*(ORT_API_CALL* SessionGetPartitionReport)(const OrtSession* session,
                                                      TesseraReportFormat format,
                                                      OrtAllocator* allocator,
                                                      char** out)TESSERA_NOEXCEPT;
  /* The number of nodes of the session's top-level graph, in run order. */
  OrtStatus*(ORT_API_CALL* SessionGetNodeCount)(const OrtSession* session,
                                                size_t* out)TESSERA_NOEXCEPT;
  /* Node `index`'s name, operator type and provider; each string is
   * allocated with `allocator`. */
  OrtStatus*(ORT_API_CALL* SessionGetNodeAssignment)(const OrtSession* session, size_t index,
                                                     OrtAllocator* allocator, char** node_name,
                                                     char** op_type,
                                                     char** provider)TESSERA_NOEXCEPT;
  /* `tessera doctor`'s findings: each provider of this build, whether this
   * machine can run it, why not, and what it looked for. */
  OrtStatus*(ORT_API_CALL* GetDoctorReport)(OrtAllocator* allocator, char** out)TESSERA_NOEXCEPT;

  /* API version 2 */
  /* Adds a placement override to session options: `rule` is
   * "name:NODE=PROVIDER" (the node of that name), "op:TYPE=PROVIDER" (nodes of
   * that operator type) or "pattern:GLOB=PROVIDER" (node names matching a
   * glob with * and ?); "=!PROVIDER" keeps the nodes from that provider
   * instead of pinning them to it, and "cpu" stands for
   * CPUExecutionProvider. Rules apply in the order added. */
  OrtStatus*(ORT_API_CALL* SessionOptionsAddPlacementRule)(OrtSessionOptions* options,
                                                           const char* rule)TESSERA_NOEXCEPT;
  /* Loads the provider plugin library at `path`, registered under that path
   * (UnregisterExecutionProviderLibrary takes it), and gives the name of the
   * provider it holds, allocated with `allocator`; sessions then take that
   * name like a built-in provider's. */
  OrtStatus*(ORT_API_CALL* RegisterProviderLibrary)(const ORTCHAR_T* path,
                                                    OrtAllocator* allocator,
                                                    char** provider_name)TESSERA_NOEXCEPT;
} TesseraApi;

typedef struct TesseraApiBase {
  const TesseraApi*(ORT_API_CALL* GetApi)(uint32_t version)TESSERA_NOEXCEPT;
} TesseraApiBase;

ORT_EXPORT const TesseraApiBase* ORT_API_CALL TesseraGetApiBase(void) TESSERA_NOEXCEPT;

#ifdef __cplusplus
}
#endif

#endif /* TESSERA_TESSERA_C_API_H */
