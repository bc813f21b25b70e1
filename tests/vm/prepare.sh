#!/usr/bin/env bash
# Prepares the VM rig once (cached): Debian's 6.12 kernel and modules, vkms.ko and sw_sync.ko built out of tree
# (Debian enables neither), and an initramfs that mounts the host read-only over 9p. Prints the boot dir (vmlinuz,
# initramfs.cpio.gz) on success. Cache: $KILN_VM_CACHE or /var/cache/kiln-vm. Exits 77 when the kernel packages
# cannot be fetched here.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cache=${KILN_VM_CACHE:-/var/cache/kiln-vm}
mkdir -p "$cache"
cd "$cache"
# Several worktrees share the cache: one preparer at a time.
exec 9>"$cache/.lock"
flock 9

version=$(apt-cache policy linux-source-6.12 2>/dev/null | awk '/Candidate:/ {print $2}')
if [ -z "$version" ] || [ "$version" = "(none)" ]; then
  echo "SKIP: linux-source-6.12 is not in the apt lists (bookworm-security/backports missing)" >&2
  exit 77
fi
abi=$(echo "$version" | sed -E 's/^([0-9]+\.[0-9]+\.[0-9]+)-.*/\1+deb12/')
work="$cache/$abi"
# One boot dir per initramfs inputs, so checkouts with different guest scripts never overwrite each other's.
inputs=$(cat "$here/guest-init.sh" "$here/initramfs.py" "$here/prepare.sh" | sha1sum | cut -c1-12)
boot="$work/boot-$inputs"
if [ -f "$boot/ready" ]; then
  echo "$boot"
  exit 0
fi

if [ ! -f "$work/vmlinuz" ]; then
  rm -rf "$work"
  mkdir -p "$work/debs"
  (
    cd "$work/debs"
    apt-get download -q "linux-image-$abi-amd64-unsigned" "linux-headers-$abi-amd64" "linux-headers-$abi-common" \
      "linux-kbuild-$abi" >/dev/null 2>&1
  ) || { echo "SKIP: cannot download the 6.12 kernel packages ($abi)" >&2; exit 77; }
  for deb in "$work"/debs/*.deb; do dpkg-deb -x "$deb" "$work/root"; done
  rm -rf "$work/debs"
  # The headers include the common Makefile by absolute path: point it into the cache.
  sed -i "s|include /usr/src/|include $work/root/usr/src/|" "$work/root/usr/src/linux-headers-$abi-amd64/Makefile"
  /usr/sbin/depmod -b "$work/root" "$abi-amd64"
  cp "$work/root/boot/vmlinuz-$abi-amd64" "$work/vmlinuz"
fi

# --- explicit sync (vm_syncobj): vkms with timeline syncobjs ---
# Stock vkms lacks DRIVER_SYNCOBJ(_TIMELINE), so kiln would not offer wp_linux_drm_syncobj_manager_v1 on it. The build
# below adds both flags and tags the module (modinfo kiln_syncobj=1); a cached vkms.ko without the tag is rebuilt.
vkms_add_syncobj() {  # DIR: patch vkms_drv.c in an extracted source tree
  sed -i -E 's/^(\s*\.driver_features\s*=[^,;]*DRIVER_GEM)\s*,/\1 | DRIVER_SYNCOBJ | DRIVER_SYNCOBJ_TIMELINE,/' \
    "$1/vkms_drv.c"
  grep -q 'DRIVER_SYNCOBJ_TIMELINE' "$1/vkms_drv.c" ||
    { echo "prepare.sh: vkms_drv.c changed shape; the syncobj patch needs updating" >&2; exit 1; }
  echo 'MODULE_INFO(kiln_syncobj, "1");' >> "$1/vkms_drv.c"
}
if [ -f "$work/vkms.ko" ] && [ "$(/usr/sbin/modinfo -F kiln_syncobj "$work/vkms.ko")" != 1 ]; then
  rm -f "$work/vkms.ko"
fi
# --- end explicit sync ---

# Out-of-tree modules from the matching kernel source: vkms, and sw_sync (test-controlled fences, CONFIG_SW_SYNC).
if [ ! -f "$work/vkms.ko" ] || [ ! -f "$work/sw_sync.ko" ]; then
  src=$(mktemp -d "$work/src.XXXXXX")
  trap 'rm -rf "$src"' EXIT
  (cd "$src" && apt-get download -q "linux-source-6.12=$version" >/dev/null 2>&1) ||
    { echo "SKIP: cannot download linux-source-6.12=$version" >&2; exit 77; }
  dpkg-deb --fsys-tarfile "$src"/linux-source-6.12_*.deb | tar -xO ./usr/src/linux-source-6.12.tar.xz |
    tar -xJ -C "$src" linux-source-6.12/drivers/gpu/drm/vkms linux-source-6.12/drivers/dma-buf
  headers="$work/root/usr/src/linux-headers-$abi-amd64"
  build() {  # DIR [VAR=VALUE...]: kbuild one module dir against the headers
    make -s -C "$headers" M="$1" modules "${@:2}" CONFIG_DEBUG_INFO_BTF_MODULES= -j"$(nproc)" >/dev/null
  }
  if [ ! -f "$work/vkms.ko" ]; then
    vkms_add_syncobj "$src/linux-source-6.12/drivers/gpu/drm/vkms"  # explicit sync (vm_syncobj)
    build "$src/linux-source-6.12/drivers/gpu/drm/vkms" CONFIG_DRM_VKMS=m
    cp "$src/linux-source-6.12/drivers/gpu/drm/vkms/vkms.ko" "$work/vkms.ko"
  fi
  if [ ! -f "$work/sw_sync.ko" ]; then
    # sw_sync.c and sync_debug.c as one module. Edits for out of tree: the tracepoint header is found next to the
    # source; sync_file_get_name is not exported (print the user name instead); the debugfs files come from
    # module_init rather than late_initcall; a module needs its licence.
    d="$src/sw_sync"
    mkdir "$d"
    cp "$src/linux-source-6.12/drivers/dma-buf/"{sync_debug.c,sync_debug.h,sync_trace.h} "$d/"
    cp "$src/linux-source-6.12/drivers/dma-buf/sw_sync.c" "$d/sw_sync_core.c"
    sed -i 's|^#define TRACE_INCLUDE_PATH .*|#define TRACE_INCLUDE_PATH .|' "$d/sync_trace.h"
    sed -i -e 's|^#include <linux/debugfs.h>|#include <linux/debugfs.h>\n#include <linux/module.h>|' \
      -e 's|sync_file_get_name(sync_file, buf, sizeof(buf))|(strscpy(buf, sync_file->user_name, sizeof(buf)), buf)|' \
      -e 's|^late_initcall(sync_debugfs_init);|module_init(sync_debugfs_init);|' "$d/sync_debug.c"
    cat >> "$d/sync_debug.c" <<'EOF'
static void __exit sync_debugfs_exit(void)
{
	debugfs_remove_recursive(dbgfs);
}
module_exit(sync_debugfs_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("sw_sync built out of tree for kiln's VM tests");
EOF
    grep -q '^module_init(sync_debugfs_init);' "$d/sync_debug.c" ||
      { echo "prepare.sh: sync_debug.c changed shape; the sw_sync edits need updating" >&2; exit 1; }
    printf 'obj-m := sw_sync.o\nsw_sync-y := sw_sync_core.o sync_debug.o\nccflags-y := -I$(src)\n' > "$d/Kbuild"
    build "$d"
    cp "$d/sw_sync.ko" "$work/sw_sync.ko"
  fi
  rm -rf "$src"
  trap - EXIT
fi

# initramfs: busybox, the modules (decompressed: busybox insmod hands the kernel raw ELF), and /init.
rm -rf "$boot"
mkdir -p "$boot"
python3 "$here/initramfs.py" --modules "$work/root/lib/modules/$abi-amd64" \
  --module "$work/vkms.ko" --module "$work/sw_sync.ko" --init "$here/guest-init.sh" --output "$boot/initramfs.cpio.gz"
ln -s ../vmlinuz "$boot/vmlinuz"
touch "$boot/ready"
echo "$boot"
