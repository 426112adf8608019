# The C ABI (src/capi): libtessera.so over the shared core
# (cmake/provider_modules.cmake), exporting only OrtGetApiBase (with ONNX
# Runtime's symbol version) and TesseraGetApiBase, and a compatibility folder where
# libonnxruntime.so.1 is Tessera's library, for programs built against ONNX
# Runtime. src/capi/generated_api_table.cpp, include/tessera/ort_api_table.h
# and docs/c_api.md come from scripts/gen_c_api.py (the test command checks
# they are current).
include(cmake/provider_modules.cmake)

# The C API's objects, compiled once: libtessera.so is made of them, and the
# Python extension carries them too (register_custom_ops_library loads
# custom-op libraries through the C ABI).
file(GLOB TESSERA_CAPI_SOURCES CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/src/capi/*.cpp)
add_library(tessera_capi_objects OBJECT ${TESSERA_CAPI_SOURCES})
set_target_properties(tessera_capi_objects PROPERTIES
  POSITION_INDEPENDENT_CODE ON
  CXX_VISIBILITY_PRESET hidden
  VISIBILITY_INLINES_HIDDEN ON)
target_include_directories(tessera_capi_objects PRIVATE ${CMAKE_SOURCE_DIR}/src ${CMAKE_SOURCE_DIR}/include)
if(NOT TESSERA_SANITIZE)
  target_compile_options(tessera_capi_objects PRIVATE -O2)
endif()

add_library(tessera_shared SHARED $<TARGET_OBJECTS:tessera_capi_objects>)
set_target_properties(tessera_shared PROPERTIES
  OUTPUT_NAME tessera
  VERSION ${PROJECT_VERSION}
  SOVERSION ${PROJECT_VERSION_MAJOR}
  CXX_VISIBILITY_PRESET hidden
  VISIBILITY_INLINES_HIDDEN ON)
target_link_libraries(tessera_shared PRIVATE tessera_core ${CMAKE_DL_LIBS})
if(TESSERA_PROVIDER_MODULE_TARGETS)
  # Built with the library, though nothing links them: the core loads them.
  add_dependencies(tessera_shared ${TESSERA_PROVIDER_MODULE_TARGETS})
endif()
set(TESSERA_CAPI_MAP ${CMAKE_SOURCE_DIR}/src/capi/libtessera.map)
target_link_options(tessera_shared PRIVATE -Wl,--version-script=${TESSERA_CAPI_MAP}
                    -Wl,--no-undefined)
set_property(TARGET tessera_shared APPEND PROPERTY LINK_DEPENDS ${TESSERA_CAPI_MAP})

# build/compat/libonnxruntime.so.1 -> libtessera.so.<major>
add_custom_command(TARGET tessera_shared POST_BUILD
  COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_BINARY_DIR}/compat
  COMMAND ${CMAKE_COMMAND} -E create_symlink ../$<TARGET_SONAME_FILE_NAME:tessera_shared>
          ${CMAKE_BINARY_DIR}/compat/libonnxruntime.so.1
  VERBATIM)
