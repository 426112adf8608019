# What `cmake --install` lays out (docs/sdk.md): the public headers (and
# include/onnxruntime/onnxruntime_c_api.h, which forwards to Tessera's),
# libtessera.so with its SONAME links, libtessera.a (the C API and the
# runtime in one archive), the compatibility folder where
# libonnxruntime.so.1 is Tessera's library, the `tessera` command, the
# sandbox provider plugin, the shipped models, the examples' sources, a CMake
# package (find_package(Tessera): Tessera::tessera, Tessera::tessera_static)
# and a pkg-config file (tessera.pc, tessera-static.pc).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(TESSERA_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/Tessera)
set(TESSERA_INSTALL_PROVIDERDIR ${CMAKE_INSTALL_LIBDIR}/tessera/providers)
set(TESSERA_INSTALL_COMPATDIR ${CMAKE_INSTALL_LIBDIR}/tessera/compat)
set(TESSERA_INSTALL_DATADIR ${CMAKE_INSTALL_DATADIR}/tessera)

# Programs installed in bin/ find the libraries in lib/ through a relative
# RPATH, so the prefix can move.
file(RELATIVE_PATH _bin_to_lib ${CMAKE_INSTALL_FULL_BINDIR} ${CMAKE_INSTALL_FULL_LIBDIR})
set_target_properties(tessera_cli PROPERTIES INSTALL_RPATH "$ORIGIN/${_bin_to_lib}")

# Consumers include <tessera/...> from include/, and ONNX Runtime's
# <onnxruntime_c_api.h> from include/onnxruntime (the forwarding header).
set_target_properties(tessera_shared PROPERTIES EXPORT_NAME tessera)
target_include_directories(tessera_shared INTERFACE
  $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>
  $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}/onnxruntime>)

# libtessera.a: the runtime's objects and the C API's, with no new
# compilation. Everything the runtime links (threads, the image codecs, the
# built-in providers' libraries, by full path) is its link interface.
add_library(tessera_static STATIC $<TARGET_OBJECTS:tessera> $<TARGET_OBJECTS:tessera_capi_objects>)
set_target_properties(tessera_static PROPERTIES
  OUTPUT_NAME tessera
  EXPORT_NAME tessera_static
  ARCHIVE_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/static
  LINKER_LANGUAGE CXX)
set(TESSERA_STATIC_DEPENDENCIES)
foreach(codec JPEG PNG TIFF WEBP JPEG2000)
  if(TESSERA_${codec}_FOUND)
    list(APPEND TESSERA_STATIC_DEPENDENCIES ${TESSERA_${codec}_LINK_LIBRARIES})
  endif()
endforeach()
list(APPEND TESSERA_STATIC_DEPENDENCIES ${TESSERA_PROVIDER_LIBRARIES} ${CMAKE_DL_LIBS})
list(REMOVE_DUPLICATES TESSERA_STATIC_DEPENDENCIES)
target_link_libraries(tessera_static INTERFACE Threads::Threads ${TESSERA_STATIC_DEPENDENCIES})
target_include_directories(tessera_static INTERFACE
  $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>
  $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}/onnxruntime>)

install(TARGETS tessera_shared tessera_static tessera_core EXPORT TesseraTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(TARGETS tessera_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
# The core libtessera.so links, and the provider modules it loads from its
# own folder (cmake/provider_modules.cmake): internal, not in the package.
set_target_properties(tessera_core ${TESSERA_PROVIDER_MODULE_TARGETS} PROPERTIES
  INSTALL_RPATH "$ORIGIN")
# Loaded through lib/tessera/compat/libonnxruntime.so.1, the library's
# $ORIGIN is the compat folder (the link's), two levels under lib/.
set_target_properties(tessera_shared PROPERTIES INSTALL_RPATH "$ORIGIN;$ORIGIN/../..")
install(TARGETS ${TESSERA_PROVIDER_MODULE_TARGETS} LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(TARGETS tessera_sandbox_ep LIBRARY DESTINATION ${TESSERA_INSTALL_PROVIDERDIR})

install(DIRECTORY ${CMAKE_SOURCE_DIR}/include/tessera DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
  FILES_MATCHING PATTERN "*.h" PATTERN "*.hpp")
install(FILES ${CMAKE_SOURCE_DIR}/include/onnxruntime/onnxruntime_c_api.h
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/onnxruntime)

# lib/tessera/compat/libonnxruntime.so.1 -> ../../libtessera.so.<major>, made
# at install time (under DESTDIR and whatever --prefix says).
file(RELATIVE_PATH _compat_to_lib ${CMAKE_INSTALL_FULL_LIBDIR}/tessera/compat
     ${CMAKE_INSTALL_FULL_LIBDIR})
string(REGEX REPLACE "/$" "" _compat_to_lib "${_compat_to_lib}")
install(CODE "
  set(_compat \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/${TESSERA_INSTALL_COMPATDIR}\")
  file(MAKE_DIRECTORY \"\${_compat}\")
  message(STATUS \"Installing: \${_compat}/libonnxruntime.so.1\")
  file(CREATE_LINK \"${_compat_to_lib}/$<TARGET_SONAME_FILE_NAME:tessera_shared>\"
       \"\${_compat}/libonnxruntime.so.1\" SYMBOLIC)
")

install(DIRECTORY ${CMAKE_SOURCE_DIR}/models/ DESTINATION ${TESSERA_INSTALL_DATADIR}/models)
install(DIRECTORY ${CMAKE_SOURCE_DIR}/examples/ DESTINATION ${TESSERA_INSTALL_DATADIR}/examples)

# The CMake package.
install(EXPORT TesseraTargets NAMESPACE Tessera:: DESTINATION ${TESSERA_INSTALL_CMAKEDIR})
configure_package_config_file(${CMAKE_SOURCE_DIR}/cmake/TesseraConfig.cmake.in
  ${CMAKE_BINARY_DIR}/package/TesseraConfig.cmake
  INSTALL_DESTINATION ${TESSERA_INSTALL_CMAKEDIR}
  PATH_VARS TESSERA_INSTALL_PROVIDERDIR TESSERA_INSTALL_COMPATDIR TESSERA_INSTALL_DATADIR)
# 0.x: the SONAME's major (0) is the ABI; a later 0.y keeps it.
write_basic_package_version_file(${CMAKE_BINARY_DIR}/package/TesseraConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMajorVersion)
install(FILES ${CMAKE_BINARY_DIR}/package/TesseraConfig.cmake
  ${CMAKE_BINARY_DIR}/package/TesseraConfigVersion.cmake DESTINATION ${TESSERA_INSTALL_CMAKEDIR})

# pkg-config: tessera.pc (the shared library) and tessera-static.pc (the
# archive and everything it needs, for `pkg-config --libs tessera-static`).
file(RELATIVE_PATH TESSERA_PC_TO_PREFIX ${CMAKE_INSTALL_FULL_LIBDIR}/pkgconfig
     ${CMAKE_INSTALL_PREFIX})
string(REGEX REPLACE "/$" "" TESSERA_PC_TO_PREFIX "${TESSERA_PC_TO_PREFIX}")
set(TESSERA_PC_STATIC_LIBS "")
foreach(dep ${TESSERA_STATIC_DEPENDENCIES})
  if(IS_ABSOLUTE "${dep}")
    string(APPEND TESSERA_PC_STATIC_LIBS " ${dep}")
  else()
    string(APPEND TESSERA_PC_STATIC_LIBS " -l${dep}")
  endif()
endforeach()
string(APPEND TESSERA_PC_STATIC_LIBS " -pthread -lstdc++ -lm")
foreach(pc tessera tessera-static)
  configure_file(${CMAKE_SOURCE_DIR}/cmake/${pc}.pc.in ${CMAKE_BINARY_DIR}/package/${pc}.pc @ONLY)
  install(FILES ${CMAKE_BINARY_DIR}/package/${pc}.pc
    DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
endforeach()
