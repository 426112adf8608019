# The oneDNN provider (src/providers/onednn), built when Debian's libdnnl-dev is
# installed: the header oneapi/dnnl/dnnl.hpp and the library dnnl. Turn it off
# with -DTESSERA_WITH_ONEDNN=OFF; when the package is missing the provider and
# its tests are simply not built.
find_path(DNNL_INCLUDE_DIR oneapi/dnnl/dnnl.hpp)
find_library(DNNL_LIBRARY dnnl)
set(_dnnl_found OFF)
if(DNNL_INCLUDE_DIR AND DNNL_LIBRARY)
  set(_dnnl_found ON)
endif()
option(TESSERA_WITH_ONEDNN "Build the oneDNN execution provider (needs libdnnl-dev)" ${_dnnl_found})

set(TESSERA_HAVE_ONEDNN OFF)
if(TESSERA_WITH_ONEDNN AND NOT _dnnl_found)
  message(STATUS "oneDNN provider: libdnnl-dev not found (oneapi/dnnl/dnnl.hpp, libdnnl); not built")
elseif(TESSERA_WITH_ONEDNN)
  # Debian builds oneDNN with the OpenMP runtime; the provider sets the OpenMP
  # thread count for its calls (num_threads option), so it links libgomp too.
  find_package(OpenMP COMPONENTS CXX)
  if(NOT OpenMP_CXX_FOUND)
    message(STATUS "oneDNN provider: OpenMP not found; not built")
  else()
    set(TESSERA_HAVE_ONEDNN ON)
    file(GLOB_RECURSE _dnnl_sources CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/src/providers/onednn/*.cpp)
    # Built into the static library, and as the module libtessera_providers_dnnl.so
    # that libtessera.so loads when present (cmake/provider_modules.cmake).
    list(APPEND TESSERA_SOURCES ${_dnnl_sources})
    set(TESSERA_DNNL_LIBRARIES ${DNNL_LIBRARY} ${OpenMP_CXX_LIBRARIES})
    list(APPEND TESSERA_PROVIDER_LIBRARIES ${TESSERA_DNNL_LIBRARIES})
    list(APPEND TESSERA_PROVIDER_MODULES "dnnl|DnnlExecutionProvider|tessera::onednn::make_dnnl_provider_factory|providers/onednn/")
    list(APPEND TESSERA_BUILT_IN_PROVIDERS "tessera::onednn::make_dnnl_provider_factory")
    message(STATUS "oneDNN provider: building with ${DNNL_LIBRARY}")
  endif()
endif()
