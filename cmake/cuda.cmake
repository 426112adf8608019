# The CUDA provider (src/providers/cuda), built when the CUDA toolkit (nvcc and
# the runtime), cuBLASLt and cuDNN 9 are found; /usr/local/cuda is looked at
# first (set CUDAToolkit_ROOT for another place). Turn it off with
# -DTESSERA_WITH_CUDA=OFF; when something is missing the provider and its tests
# are left out and one status line says what was missing. No GPU is needed to
# build it: the provider asks for devices at run time.
#
# Linking: libcudart and libcudnn are linked (both are small and load in
# milliseconds without a driver). libcublasLt (about 500 MB) is opened with
# dlopen when a provider is created, because linking it added about 0.4 s and
# 200 MB of memory to the start of every process (each unit test is one),
# GPU or not.
set(_cuda_missing "")
if(NOT DEFINED CUDAToolkit_ROOT AND NOT DEFINED ENV{CUDAToolkit_ROOT} AND EXISTS /usr/local/cuda)
  set(CUDAToolkit_ROOT /usr/local/cuda)
endif()
if(NOT DEFINED CMAKE_CUDA_COMPILER AND NOT DEFINED ENV{CUDACXX} AND DEFINED CUDAToolkit_ROOT
   AND EXISTS ${CUDAToolkit_ROOT}/bin/nvcc)
  set(CMAKE_CUDA_COMPILER ${CUDAToolkit_ROOT}/bin/nvcc CACHE FILEPATH "CUDA compiler")
endif()
include(CheckLanguage)
check_language(CUDA)  # cached after the first configure
if(NOT CMAKE_CUDA_COMPILER)
  list(APPEND _cuda_missing "nvcc")
endif()
find_package(CUDAToolkit QUIET)
if(NOT CUDAToolkit_FOUND OR NOT CUDA_cudart_LIBRARY)
  list(APPEND _cuda_missing "the CUDA runtime (libcudart)")
endif()
find_path(TESSERA_CUBLASLT_INCLUDE_DIR cublasLt.h HINTS ${CUDAToolkit_INCLUDE_DIRS})
if(NOT TESSERA_CUBLASLT_INCLUDE_DIR OR NOT CUDA_cublasLt_LIBRARY)
  list(APPEND _cuda_missing "cuBLASLt (cublasLt.h, libcublasLt)")
endif()
find_path(CUDNN_INCLUDE_DIR cudnn_version.h HINTS ${CUDAToolkit_INCLUDE_DIRS})
find_library(CUDNN_LIBRARY cudnn HINTS ${CUDAToolkit_LIBRARY_DIR})
set(_cudnn_major "")
if(CUDNN_INCLUDE_DIR AND EXISTS ${CUDNN_INCLUDE_DIR}/cudnn_version.h)
  file(STRINGS ${CUDNN_INCLUDE_DIR}/cudnn_version.h _line REGEX "^#define CUDNN_MAJOR [0-9]+")
  string(REGEX MATCH "[0-9]+" _cudnn_major "${_line}")
endif()
if(NOT _cudnn_major OR NOT CUDNN_LIBRARY)
  list(APPEND _cuda_missing "cuDNN (cudnn_version.h, libcudnn)")
elseif(_cudnn_major LESS 9)
  list(APPEND _cuda_missing "cuDNN 9 (found cuDNN ${_cudnn_major})")
endif()
set(_cuda_found OFF)
if(NOT _cuda_missing)
  set(_cuda_found ON)
endif()
option(TESSERA_WITH_CUDA "Build the CUDA execution provider (needs the CUDA toolkit and cuDNN 9)"
       ${_cuda_found})

set(TESSERA_HAVE_CUDA OFF)
if(_cuda_missing)
  list(JOIN _cuda_missing ", " _what)
  message(STATUS "CUDA provider: not found: ${_what}; not built")
elseif(NOT TESSERA_WITH_CUDA)
  message(STATUS "CUDA provider: turned off (TESSERA_WITH_CUDA=OFF); not built")
else()
  set(TESSERA_HAVE_CUDA ON)
  # Machine code for every architecture CUDA 13 supports from Turing on (code
  # for sm_XY runs on every X.Y-or-later GPU of major version X, so 80 serves
  # 8.7 and 8.8, 100 serves 10.3, 120 serves 12.1) and PTX of the newest, which
  # the driver compiles for GPUs newer than the build. One architecture (e.g.
  # -DCMAKE_CUDA_ARCHITECTURES=90) builds several times faster for development.
  set(TESSERA_CUDA_DEFAULT_ARCHITECTURES
      "75-real;80-real;86-real;89-real;90-real;100-real;110-real;120-real;120-virtual")
  if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
    set(CMAKE_CUDA_ARCHITECTURES "${TESSERA_CUDA_DEFAULT_ARCHITECTURES}" CACHE STRING
        "GPU architectures to build CUDA kernels for (CMake's list: 90, 90-real, 120-virtual)")
  endif()
  # The runtime is linked below by path (CMake's own choice would name it with
  # -lcudart and no folder when a C++ target links the CUDA objects).
  set(CMAKE_CUDA_RUNTIME_LIBRARY None)
  if(CCACHE_PROGRAM)
    set(CMAKE_CUDA_COMPILER_LAUNCHER ${CCACHE_PROGRAM})
  endif()
  enable_language(CUDA)
  # nvcc takes the host compiler's warning flags through -Xcompiler; the
  # project's -Wall -Wextra -Werror apply to C and C++ only (CMakeLists.txt).
  add_compile_options("$<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Wall,-Wextra,-Werror;--Werror=all-warnings>")
  # The .cu files are C++17 (CMake 3.25 knows nvcc's dialects only up to 17);
  # they include nothing of the project but cuda_launch.hpp and its plain types.
  set(CMAKE_CUDA_STANDARD 17)
  set(CMAKE_CUDA_STANDARD_REQUIRED ON)
  file(GLOB _cuda_sources CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/src/providers/cuda/*.cpp
       ${CMAKE_SOURCE_DIR}/src/providers/cuda/*.cu)
  list(APPEND TESSERA_SOURCES ${_cuda_sources})
  # Only the provider's own files see the CUDA headers, so every other file
  # keeps its compile flags (and its ccache hits) whether CUDA is built or not.
  set_source_files_properties(${_cuda_sources} PROPERTIES INCLUDE_DIRECTORIES
    "${CUDAToolkit_INCLUDE_DIRS};${CUDNN_INCLUDE_DIR}")
  string(REPLACE ";" "," _archs "${CMAKE_CUDA_ARCHITECTURES}")
  set_property(SOURCE ${_cuda_sources} APPEND PROPERTY COMPILE_DEFINITIONS
    "TESSERA_CUDA_ARCHITECTURES=\"${_archs}\""
    "TESSERA_CUBLASLT_SONAME=\"libcublasLt.so.${CUDAToolkit_VERSION_MAJOR}\""
    "TESSERA_CUBLASLT_PATH=\"${CUDAToolkit_LIBRARY_DIR}/libcublasLt.so.${CUDAToolkit_VERSION_MAJOR}\"")
  # Full paths, not the CUDA:: targets: those would put the CUDA include
  # directory on every target that links tessera. Built into the static
  # library, and as the module libtessera_providers_cuda.so that libtessera.so
  # loads when present (cmake/provider_modules.cmake).
  set(TESSERA_CUDA_LIBRARIES ${CUDA_cudart_LIBRARY} ${CUDNN_LIBRARY} ${CMAKE_DL_LIBS})
  list(APPEND TESSERA_PROVIDER_LIBRARIES ${TESSERA_CUDA_LIBRARIES})
  list(APPEND TESSERA_PROVIDER_MODULES "cuda|CUDAExecutionProvider|tessera::cuda::make_cuda_provider_factory|providers/cuda/")
  list(APPEND TESSERA_BUILT_IN_PROVIDERS "tessera::cuda::make_cuda_provider_factory")
  message(STATUS "CUDA provider: building for ${CMAKE_CUDA_ARCHITECTURES} with CUDA "
                 "${CUDAToolkit_VERSION} and cuDNN ${_cudnn_major} (${CUDNN_LIBRARY})")
endif()
