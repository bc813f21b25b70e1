#!/usr/bin/env bash
# Installs everything kiln builds, tests and benchmarks with on Debian 12 (+ bookworm-backports). Idempotent.
set -euo pipefail

SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"

if ! grep -rqs 'bookworm-backports' /etc/apt/sources.list /etc/apt/sources.list.d/; then
  echo "deb http://deb.debian.org/debian bookworm-backports main" | $SUDO tee /etc/apt/sources.list.d/kiln-backports.list >/dev/null
fi

export DEBIAN_FRONTEND=noninteractive
stamp=/var/lib/apt/periodic/kiln-update-stamp
if [ ! -f "$stamp" ] || [ -n "$(find "$stamp" -mmin +360 2>/dev/null)" ] || ! apt-cache policy meson | grep -q bpo; then
  $SUDO apt-get update -qq
  $SUDO mkdir -p "$(dirname "$stamp")" && $SUDO touch "$stamp"
fi

# From backports: the versions kiln is written against (PipeWire 1.4: daemon, library and GStreamer plugin of one
# version, for kiln-portal and tests/portal; Mesa 25, libwayland 1.23, protocols 1.43, meson 1.7, weston 14;
# Mesa 25's lavapipe, whose Vulkan WSI uses fifo-v1 and commit-timing-v1, for vkcube in tests/protocol/vkcube_fifo.py).
backports=(
  meson libwayland-dev libwayland-bin wayland-protocols
  libegl-dev libgles-dev libgbm-dev libegl-mesa0 libgl1-mesa-dri mesa-utils
  libdrm-dev catch2 weston
  libdrm-tests
  mesa-vulkan-drivers
  libpipewire-0.3-dev libspa-0.2-dev pipewire pipewire-bin wireplumber gstreamer1.0-pipewire
)
# From bookworm itself. clang + libclang-rt-14-dev (libclang_rt.fuzzer, -fsanitize=fuzzer) build the fuzzers;
# gcc's own libasan/libubsan (build-essential) serve the sanitizer job. wlcs (1.5.0) is the conformance suite's runner
# and headers (tests/wlcs); libpango1.0-dev draws the title text of kiln's decorations. The last two lines are the
# everyday clients of tests/clients (fonts-dejavu-core: foot's monospace font).
# liblcms2-dev reads ICC profiles for color-management-v1. libinih-dev only builds xdg-desktop-portal-wlr 0.7.0 for
# bench/share_cost.py (bench/xdpw/build.sh); without it that bench skips its sway rows.
base=(
  build-essential pkg-config ninja-build cmake python3
  libwlroots-dev libpixman-1-dev libxkbcommon-dev libseat-dev libinput-dev libudev-dev
  libzstd-dev libssl-dev libpango1.0-dev
  wayland-utils grim xvfb x11-apps xauth wl-clipboard wtype wev wlr-randr swaybg swaylock swayidle waybar
  fcitx5 fcitx5-pinyin python3-gi gir1.2-gtk-3.0 fcitx5-frontend-qt5 python3-pyqt5 dbus-daemon
  scdoc man-db
  adwaita-icon-theme
  xwayland libxcb1-dev xterm xclip procps
  sway gnuplot-nox
  qemu-system-x86 busybox-static cpio kmod xz-utils seatd udev
  clang libclang-rt-14-dev
  wlcs
  foot fonts-dejavu-core gtk-3-examples gtk-4-examples qmlscene qml-module-qtquick2 qtwayland5
  glmark2-es2-wayland mpv imv kanshi
  chromium firefox-esr
  # OBS for tests/portal/obs_share.py (obs-plugins holds its PipeWire capture; a Recommends, so named): 14 packages,
  # 6.8 MB to download, 29 MB installed, 28 s to install on the 2-core machine.
  obs-studio obs-plugins
  vulkan-tools
  libsystemd-dev libpng-dev xdg-desktop-portal python3-dbus gir1.2-gstreamer-1.0 gstreamer1.0-plugins-base
  liblcms2-dev
  libinih-dev
)
$SUDO apt-get install -y -qq --no-install-recommends -t bookworm-backports "${backports[@]}" >/dev/null
$SUDO apt-get install -y -qq --no-install-recommends "${base[@]}" >/dev/null
echo "kiln: dependencies installed"
