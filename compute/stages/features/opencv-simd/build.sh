#!/usr/bin/env bash
# Rebuilds opencv.js here: OpenCV 4.6.0 (Debian bookworm's source package) compiled by Debian's
# Emscripten 3.1.6 with WebAssembly SIMD for the compiler's vectoriser (`-msimd128`) and OpenCV's
# own SIMD intrinsics off (no `--simd`: with them a few AKAZE descriptors differ from npm's build;
# README), only core, imgproc and features2d bound (opencv_js.config.py). Not part of `npm ci`: the output is committed. Needs root (apt-get)
# and a deb-src line for bookworm in /etc/apt/sources.list.d. About 10–25 minutes on 2 cores.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
work="${1:-$(mktemp -d)}"
apt-get install -y emscripten cmake node-acorn
cd "$work"
apt-get source --download-only opencv zlib
tar xJf opencv_4.6.0+dfsg.orig.tar.xz
tar xjf zlib_1.2.13.dfsg.orig.tar.bz2
# Debian's source strips OpenCV's bundled zlib, which core needs: zlib's own files, a small CMakeLists.
mkdir -p opencv-4.6.0/3rdparty/zlib
cp zlib-1.2.13.dfsg/*.c zlib-1.2.13.dfsg/*.h opencv-4.6.0/3rdparty/zlib/
cp "$here/zlib-CMakeLists.txt" opencv-4.6.0/3rdparty/zlib/CMakeLists.txt
cd opencv-4.6.0
# Emscripten's JS optimiser requires Debian's acorn from /usr/share/nodejs.
NODE_PATH=/usr/share/nodejs python3 platforms/js/build_js.py "$work/build" --build_wasm --build_flags="-msimd128 " \
  --emscripten_dir=/usr/share/emscripten --config="$here/opencv_js.config.py" \
  --cmake_option=-DBUILD_opencv_dnn=OFF --cmake_option=-DBUILD_opencv_calib3d=OFF \
  --cmake_option=-DBUILD_opencv_photo=OFF --cmake_option=-DBUILD_opencv_objdetect=OFF \
  --cmake_option=-DBUILD_opencv_video=OFF --cmake_option=-DWITH_OPENJPEG=OFF \
  --cmake_option=-DWITH_PROTOBUF=OFF --cmake_option=-DBUILD_PROTOBUF=OFF \
  --cmake_option=-DWITH_QUIRC=OFF --cmake_option=-DWITH_ADE=OFF
cp "$work/build/bin/opencv.js" "$here/opencv.cjs"
# The build tree's paths (source file names in error messages, the host's Python) out of the module.
python3 "$here/strip-paths.py" "$here/opencv.cjs" "$work"
sha256sum "$here/opencv.cjs"
