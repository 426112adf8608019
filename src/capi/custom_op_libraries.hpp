// Custom-op libraries: shared libraries exporting RegisterCustomOps, loaded
// for session options and kept loaded while any session uses their ops.
#pragma once
#include <memory>

namespace tessera::capi {

// The library whose RegisterCustomOps is running on this thread (its ops are
// added with it, so they keep it loaded), or null.
std::shared_ptr<void> library_being_registered();

}  // namespace tessera::capi
