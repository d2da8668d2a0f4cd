#!/bin/sh
# Installs the C library: liblidx.so and liblidx.a, include/lidx.h, and a
# pkg-config file, under PREFIX (default /usr/local):
#
#   cargo build --release -p lidx-capi
#   capi/install.sh [PREFIX [BUILD_DIR]]
#   PKG_CONFIG_PATH=PREFIX/lib/pkgconfig pkg-config --cflags --libs lidx
#   (lidx-static instead of lidx: liblidx.a linked in, not liblidx.so)
#
# BUILD_DIR is where cargo put the libraries (default target/release of
# this workspace). Nothing is built here; nothing outside PREFIX is touched.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
prefix=${1:-/usr/local}
from=${2:-$here/../target/release}
version=$(sed -n 's/^version = "\(.*\)"$/\1/p' "$here/Cargo.toml" | head -n 1)
for f in liblidx.a liblidx.so; do
  if [ ! -f "$from/$f" ]; then
    echo "install.sh: $from/$f not found (run: cargo build --release -p lidx-capi)" >&2
    exit 1
  fi
done
mkdir -p "$prefix/lib/pkgconfig" "$prefix/include"
cp "$from/liblidx.a" "$from/liblidx.so" "$prefix/lib/"
cp "$here/include/lidx.h" "$prefix/include/"
for pc in lidx lidx-static; do
  sed -e "s|@PREFIX@|$prefix|" -e "s|@VERSION@|$version|" "$here/$pc.pc.in" \
    > "$prefix/lib/pkgconfig/$pc.pc"
done
echo "installed lidx $version under $prefix"
