# The Open Inference Protocol server (src/serve/, docs/serving.md), built on
# the public C++ API only: its include path is include/ and src/ for its own
# headers (the layering test keeps it to include/). `tessera serve` runs it in
# the command's process: the command links the C API's objects (the ones
# libtessera.so and libtessera.a are made of) beside the runtime it already
# links, so tessera::api calls reach the same runtime, with no second copy and
# no library to find at run time.
find_package(PkgConfig REQUIRED)
pkg_check_modules(TESSERA_HTTPLIB REQUIRED IMPORTED_TARGET cpp-httplib)
find_package(nlohmann_json 3.10 REQUIRED)

file(GLOB TESSERA_SERVE_SOURCES CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/src/serve/*.cpp)
add_library(tessera_serve STATIC ${TESSERA_SERVE_SOURCES})
target_include_directories(tessera_serve PUBLIC ${CMAKE_SOURCE_DIR}/src ${CMAKE_SOURCE_DIR}/include)
target_compile_definitions(tessera_serve PRIVATE TESSERA_SERVE_VERSION="${PROJECT_VERSION}")
target_link_libraries(tessera_serve PUBLIC PkgConfig::TESSERA_HTTPLIB nlohmann_json::nlohmann_json
                      Threads::Threads)

target_sources(tessera_cli PRIVATE $<TARGET_OBJECTS:tessera_shared>)
target_link_libraries(tessera_cli PRIVATE tessera_serve)
