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

# The gRPC transport (src/serve/grpc/), built when Debian's gRPC C++ and
# protobuf packages are found (scripts/install_deps.sh installs them); without
# them the server is built with HTTP alone and `--grpc-port` says so. The C++
# of the service definition is generated at build time by protoc and
# grpc_cpp_plugin.
option(TESSERA_SERVE_GRPC "Build the gRPC transport of tessera serve when gRPC is found" ON)
set(TESSERA_SERVE_GRPC_BUILT OFF)
if(TESSERA_SERVE_GRPC)
  find_package(gRPC CONFIG QUIET)
  find_package(Protobuf QUIET)
  find_program(TESSERA_PROTOC protoc)
  find_program(TESSERA_GRPC_CPP_PLUGIN grpc_cpp_plugin)
  if(gRPC_FOUND AND Protobuf_FOUND AND TESSERA_PROTOC AND TESSERA_GRPC_CPP_PLUGIN)
    set(TESSERA_SERVE_GRPC_BUILT ON)
  else()
    message(STATUS "tessera serve: gRPC not found (libgrpc++-dev, protobuf-compiler-grpc, "
                   "libprotobuf-dev); serving HTTP only")
  endif()
endif()
if(TESSERA_SERVE_GRPC_BUILT)
  # The Open Inference Protocol's service and gRPC's health checking service.
  set(TESSERA_PROTO_OUT ${CMAKE_BINARY_DIR}/serve_proto)
  set(TESSERA_PROTO_GENERATED)
  foreach(proto grpc_predict_v2 health)
    set(generated ${TESSERA_PROTO_OUT}/${proto}.pb.cc ${TESSERA_PROTO_OUT}/${proto}.pb.h
                  ${TESSERA_PROTO_OUT}/${proto}.grpc.pb.cc ${TESSERA_PROTO_OUT}/${proto}.grpc.pb.h)
    add_custom_command(
      OUTPUT ${generated}
      COMMAND ${CMAKE_COMMAND} -E make_directory ${TESSERA_PROTO_OUT}
      COMMAND ${TESSERA_PROTOC} -I${CMAKE_SOURCE_DIR}/src/serve/proto --cpp_out=${TESSERA_PROTO_OUT}
              --grpc_out=${TESSERA_PROTO_OUT} --plugin=protoc-gen-grpc=${TESSERA_GRPC_CPP_PLUGIN}
              ${CMAKE_SOURCE_DIR}/src/serve/proto/${proto}.proto
      DEPENDS ${CMAKE_SOURCE_DIR}/src/serve/proto/${proto}.proto
      COMMENT "Generating the C++ of the gRPC service ${proto}.proto"
      VERBATIM)
    list(APPEND TESSERA_PROTO_GENERATED ${generated})
  endforeach()
  file(GLOB TESSERA_SERVE_GRPC_SOURCES CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/src/serve/grpc/*.cpp)
  # Generated code is not held to the project's warning flags.
  add_library(tessera_serve_proto STATIC ${TESSERA_PROTO_GENERATED})
  target_compile_options(tessera_serve_proto PRIVATE -w)
  target_include_directories(tessera_serve_proto SYSTEM PUBLIC ${TESSERA_PROTO_OUT})
  target_link_libraries(tessera_serve_proto PUBLIC gRPC::grpc++ protobuf::libprotobuf)
  target_sources(tessera_serve PRIVATE ${TESSERA_SERVE_GRPC_SOURCES})
  target_compile_definitions(tessera_serve PUBLIC TESSERA_SERVE_GRPC=1)
  target_link_libraries(tessera_serve PUBLIC tessera_serve_proto)
endif()

target_sources(tessera_cli PRIVATE $<TARGET_OBJECTS:tessera_capi_objects>)
target_link_libraries(tessera_cli PRIVATE tessera_serve)
