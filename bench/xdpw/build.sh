#!/bin/sh
# Builds xdg-desktop-portal-wlr 0.7.0 from SRC_DIR with relax-dmabuf-check.patch applied, into OUT_DIR (no install).
# SRC_DIR: an unpacked v0.7.0 tree, or a git repository (a bare mirror too) with the tag v0.7.0, which is exported
# first. OUT_DIR gets src/ (the patched copy) and build/ (meson); the binary is OUT_DIR/build/xdg-desktop-portal-wlr.
# Offline: needs only the source, meson, ninja, a C compiler and the -dev packages (libinih-dev, libpipewire-0.3-dev,
# libsystemd-dev, libgbm-dev, libdrm-dev, wayland-protocols). Exits non-zero with one line saying what is missing.
set -eu
[ $# -eq 2 ] || { echo "usage: $0 SRC_DIR OUT_DIR" >&2; exit 2; }
src=$1 out=$2
here=$(cd "$(dirname "$0")" && pwd)
patch_file=$here/relax-dmabuf-check.patch
pkg-config --exists inih || { echo "xdpw build: libinih-dev is not installed (pkg-config inih)" >&2; exit 1; }
mkdir -p "$out"
out=$(cd "$out" && pwd)
rm -rf "$out/src" "$out/build"
mkdir "$out/src"
if git -C "$src" rev-parse --verify -q v0.7.0 >/dev/null 2>&1; then
	git -C "$src" archive v0.7.0 | tar -x -C "$out/src"
elif [ -f "$src/meson.build" ] && grep -q "version: '0.7.0'" "$src/meson.build"; then
	cp -a "$src/." "$out/src/"
else
	echo "xdpw build: $src is neither a git repository with tag v0.7.0 nor a 0.7.0 source tree" >&2
	exit 1
fi
(cd "$out/src" && patch -p1 --forward --quiet <"$patch_file") ||
	{ echo "xdpw build: $patch_file does not apply to $src" >&2; exit 1; }
meson setup "$out/build" "$out/src" --buildtype=release -Dman-pages=disabled -Dsystemd=disabled >"$out/meson.log" 2>&1 ||
	{ tail -n 20 "$out/meson.log" >&2; echo "xdpw build: meson setup failed (log: $out/meson.log)" >&2; exit 1; }
meson compile -C "$out/build" >>"$out/meson.log" 2>&1 ||
	{ tail -n 20 "$out/meson.log" >&2; echo "xdpw build: compile failed (log: $out/meson.log)" >&2; exit 1; }
echo "$out/build/xdg-desktop-portal-wlr"
