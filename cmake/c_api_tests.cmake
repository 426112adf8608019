# Tests of the C ABI as an application sees it: tessera_capi_tests links only
# libtessera.so and includes only include/. The custom-op library it loads is
# C built against onnxruntime_c_api.h alone; the library without
# RegisterCustomOps is the plugin tests' library without entry points.
add_library(tessera_test_custom_op_library SHARED tests/capi/custom_op_library.c)
target_include_directories(tessera_test_custom_op_library PRIVATE ${CMAKE_SOURCE_DIR}/include)
target_link_libraries(tessera_test_custom_op_library PRIVATE m)

add_executable(tessera_capi_tests tests/capi/test_custom_ops.cpp)
target_include_directories(tessera_capi_tests PRIVATE ${CMAKE_SOURCE_DIR}/include)
target_link_libraries(tessera_capi_tests PRIVATE tessera_shared GTest::gtest GTest::gtest_main
                      ${CMAKE_DL_LIBS})
# RegisterCustomOpsUsingFunction finds the program's own registration function.
set_target_properties(tessera_capi_tests PROPERTIES ENABLE_EXPORTS ON)
target_compile_definitions(tessera_capi_tests PRIVATE
  "TESSERA_CUSTOM_OP_LIBRARY=\"$<TARGET_FILE:tessera_test_custom_op_library>\""
  "TESSERA_NO_REGISTER_LIBRARY=\"$<TARGET_FILE:tessera_test_no_entry_plugin>\"")
add_dependencies(tessera_capi_tests tessera_test_custom_op_library tessera_test_no_entry_plugin)
gtest_discover_tests(tessera_capi_tests DISCOVERY_TIMEOUT 60)
