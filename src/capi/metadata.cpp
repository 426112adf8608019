// A model's metadata, as the session loaded it.
#include "capi/api_status.hpp"
#include "capi/convert.hpp"

namespace tessera::capi {
namespace {

const OrtModelMetadata& md(const OrtModelMetadata* m) {
  need(m, "model metadata");
  return *m;
}

}  // namespace

OrtStatus* ORT_API_CALL SessionGetModelMetadata(const OrtSession* session,
                                                OrtModelMetadata** out) noexcept {
  return guard("SessionGetModelMetadata", [&] {
    need(session, "session");
    need(out, "out");
    const ir::Model& m = session->get().model();
    auto meta = std::make_unique<OrtModelMetadata>();
    meta->producer_name = m.producer_name;
    meta->graph_name = m.graph.name;
    meta->domain = m.domain;
    meta->description = m.doc_string;
    meta->graph_description = m.graph.doc_string;
    meta->version = m.model_version;
    meta->custom = m.metadata_props;
    *out = meta.release();
  });
}

void ORT_API_CALL ReleaseModelMetadata(OrtModelMetadata* input) noexcept { delete input; }

OrtStatus* ORT_API_CALL ModelMetadataGetProducerName(const OrtModelMetadata* model_metadata,
                                                     OrtAllocator* allocator,
                                                     char** value) noexcept {
  return guard("ModelMetadataGetProducerName", [&] {
    need(value, "value");
    *value = allocate_string(allocator, md(model_metadata).producer_name);
  });
}

OrtStatus* ORT_API_CALL ModelMetadataGetGraphName(const OrtModelMetadata* model_metadata,
                                                  OrtAllocator* allocator, char** value) noexcept {
  return guard("ModelMetadataGetGraphName", [&] {
    need(value, "value");
    *value = allocate_string(allocator, md(model_metadata).graph_name);
  });
}

OrtStatus* ORT_API_CALL ModelMetadataGetDomain(const OrtModelMetadata* model_metadata,
                                               OrtAllocator* allocator, char** value) noexcept {
  return guard("ModelMetadataGetDomain", [&] {
    need(value, "value");
    *value = allocate_string(allocator, md(model_metadata).domain);
  });
}

OrtStatus* ORT_API_CALL ModelMetadataGetDescription(const OrtModelMetadata* model_metadata,
                                                    OrtAllocator* allocator,
                                                    char** value) noexcept {
  return guard("ModelMetadataGetDescription", [&] {
    need(value, "value");
    *value = allocate_string(allocator, md(model_metadata).description);
  });
}

OrtStatus* ORT_API_CALL ModelMetadataGetGraphDescription(const OrtModelMetadata* model_metadata,
                                                         OrtAllocator* allocator,
                                                         char** value) noexcept {
  return guard("ModelMetadataGetGraphDescription", [&] {
    need(value, "value");
    *value = allocate_string(allocator, md(model_metadata).graph_description);
  });
}

OrtStatus* ORT_API_CALL ModelMetadataGetVersion(const OrtModelMetadata* model_metadata,
                                                int64_t* value) noexcept {
  return guard("ModelMetadataGetVersion", [&] {
    need(value, "value");
    *value = md(model_metadata).version;
  });
}

OrtStatus* ORT_API_CALL ModelMetadataLookupCustomMetadataMap(const OrtModelMetadata* model_metadata,
                                                             OrtAllocator* allocator,
                                                             const char* key,
                                                             char** value) noexcept {
  return guard("ModelMetadataLookupCustomMetadataMap", [&] {
    need(key, "key");
    need(value, "value");
    *value = nullptr;  // absent keys give NULL
    for (const auto& [k, v] : md(model_metadata).custom)
      if (k == key) *value = allocate_string(allocator, v);
  });
}

OrtStatus* ORT_API_CALL ModelMetadataGetCustomMetadataMapKeys(
    const OrtModelMetadata* model_metadata, OrtAllocator* allocator, char*** keys,
    int64_t* num_keys) noexcept {
  return guard("ModelMetadataGetCustomMetadataMapKeys", [&] {
    need(keys, "keys");
    need(num_keys, "num_keys");
    need(allocator, "allocator");
    const auto& custom = md(model_metadata).custom;
    *keys = nullptr;
    *num_keys = static_cast<int64_t>(custom.size());
    if (custom.empty()) return;
    auto** list = static_cast<char**>(allocator->Alloc(allocator, custom.size() * sizeof(char*)));
    check_code(list != nullptr, ErrorCode::kOutOfMemory, "the allocator returned null");
    size_t made = 0;
    try {
      for (; made < custom.size(); ++made)
        list[made] = allocate_string(allocator, custom[made].first);
    } catch (...) {
      for (size_t i = 0; i < made; ++i) allocator->Free(allocator, list[i]);
      allocator->Free(allocator, list);
      throw;
    }
    *keys = list;
  });
}

}  // namespace tessera::capi
