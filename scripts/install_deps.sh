#!/usr/bin/env bash
# Installs every Debian 12 package the build and the tests need. Nothing else
# is downloaded, at build time or at run time.
set -euo pipefail
SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO=sudo; fi
PACKAGES=(cmake ninja-build g++ ccache libgtest-dev libgmock-dev libbenchmark-dev
          python3 python3-dev python3-numpy python3-onnx python3-pytest pybind11-dev pkg-config
          python3-pip python3-setuptools python3-wheel python3-venv
          libjpeg62-turbo-dev libpng-dev libtiff-dev libwebp-dev libopenjp2-7-dev
          libdnnl-dev graphviz libcpp-httplib-dev nlohmann-json3-dev
          libgrpc++-dev libprotobuf-dev protobuf-compiler protobuf-compiler-grpc
          python3-grpcio python3-protobuf python3-grpc-tools python3-requests python3-yaml curl)
missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
  echo "installing: ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}"
else
  echo "all build and test packages are installed"
fi
