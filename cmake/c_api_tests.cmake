# Tests of the C ABI (tests/capi): programs that link libtessera.so alone and
# include nothing but include/, with models written by
# tests/capi/make_capi_models.py (Debian's python3-onnx) at build time.
set(TESSERA_CAPI_MODELS ${CMAKE_BINARY_DIR}/capi_models)
add_custom_command(
  OUTPUT ${TESSERA_CAPI_MODELS}/add_mul.onnx
  COMMAND /usr/bin/python3 ${CMAKE_SOURCE_DIR}/tests/capi/make_capi_models.py ${TESSERA_CAPI_MODELS}
  DEPENDS ${CMAKE_SOURCE_DIR}/tests/capi/make_capi_models.py
  COMMENT "Writing the C API tests' models")
add_custom_target(tessera_capi_models ALL DEPENDS ${TESSERA_CAPI_MODELS}/add_mul.onnx)

# The custom-op library the tests load is C built against onnxruntime_c_api.h
# alone; the library without RegisterCustomOps is the plugin tests' library
# without entry points.
add_library(tessera_test_custom_op_library SHARED ${CMAKE_SOURCE_DIR}/tests/capi/custom_op_library.c)
target_include_directories(tessera_test_custom_op_library PRIVATE ${CMAKE_SOURCE_DIR}/include)
target_link_libraries(tessera_test_custom_op_library PRIVATE m)

file(GLOB TESSERA_CAPI_TESTS CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/tests/capi/test_*.cpp)
add_executable(tessera_capi_tests ${TESSERA_CAPI_TESTS})
target_include_directories(tessera_capi_tests PRIVATE ${CMAKE_SOURCE_DIR}/include)
target_link_libraries(tessera_capi_tests PRIVATE tessera_shared GTest::gtest GTest::gtest_main
                      ${CMAKE_DL_LIBS})
# RegisterCustomOpsUsingFunction finds the program's own registration function.
set_target_properties(tessera_capi_tests PROPERTIES ENABLE_EXPORTS ON)
target_compile_definitions(tessera_capi_tests PRIVATE TESSERA_CAPI_MODELS="${TESSERA_CAPI_MODELS}"
  "TESSERA_CUSTOM_OP_LIBRARY=\"$<TARGET_FILE:tessera_test_custom_op_library>\""
  "TESSERA_NO_REGISTER_LIBRARY=\"$<TARGET_FILE:tessera_test_no_entry_plugin>\""
  "TESSERA_SANDBOX_PLUGIN=\"$<TARGET_FILE:tessera_sandbox_ep>\"")
add_dependencies(tessera_capi_tests tessera_capi_models tessera_test_custom_op_library
                 tessera_test_no_entry_plugin tessera_sandbox_ep)
gtest_discover_tests(tessera_capi_tests DISCOVERY_TIMEOUT 60)

add_executable(tessera_capi_c_smoke ${CMAKE_SOURCE_DIR}/tests/capi/c_smoke.c)
target_include_directories(tessera_capi_c_smoke PRIVATE ${CMAKE_SOURCE_DIR}/include)
target_link_libraries(tessera_capi_c_smoke PRIVATE tessera_shared)
set_target_properties(tessera_capi_c_smoke PROPERTIES C_STANDARD 99 C_STANDARD_REQUIRED ON)
add_dependencies(tessera_capi_c_smoke tessera_capi_models)
add_test(NAME CApi.CProgram COMMAND tessera_capi_c_smoke ${TESSERA_CAPI_MODELS}/add_mul.onnx)

# Every public header compiles alone with only include/ on the path (C
# headers as C and as C++, C++ headers as C++).
file(GLOB TESSERA_PUBLIC_HEADERS CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/include/tessera/*.h
     ${CMAKE_SOURCE_DIR}/include/tessera/*.hpp ${CMAKE_SOURCE_DIR}/include/tessera/cxx/*.hpp)
set(TESSERA_HEADER_TUS)
foreach(header ${TESSERA_PUBLIC_HEADERS})
  file(RELATIVE_PATH rel ${CMAKE_SOURCE_DIR}/include ${header})
  string(MAKE_C_IDENTIFIER ${rel} id)
  set(tu ${CMAKE_BINARY_DIR}/public_headers/${id}.cpp)
  file(CONFIGURE OUTPUT ${tu} CONTENT "#include \"${rel}\"\n")
  list(APPEND TESSERA_HEADER_TUS ${tu})
  if(header MATCHES "\\.h$")
    set(ctu ${CMAKE_BINARY_DIR}/public_headers/${id}.c)
    file(CONFIGURE OUTPUT ${ctu} CONTENT "#include \"${rel}\"\n")
    list(APPEND TESSERA_HEADER_TUS ${ctu})
  endif()
endforeach()
add_library(tessera_public_headers OBJECT ${TESSERA_HEADER_TUS})
target_include_directories(tessera_public_headers PRIVATE ${CMAKE_SOURCE_DIR}/include)
set_target_properties(tessera_public_headers PROPERTIES C_STANDARD 99)

# libtessera.so and its core need none of the providers' libraries (CUDA,
# oneDNN): those are linked by the provider modules the core loads.
add_test(NAME CApi.LibraryNeedsNoProviderLibraries
  COMMAND sh -c "! readelf -d \"$0\" \"$1\" | grep NEEDED | grep -E 'cudart|cudnn|cublas|dnnl|gomp'"
          $<TARGET_FILE:tessera_shared> $<TARGET_FILE:tessera_core>)
