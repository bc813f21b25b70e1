#!/usr/bin/env bash
# Prepares the VM rig once (cached): Debian's 6.12 kernel and modules, vkms.ko built out of tree (Debian does not
# enable it), and an initramfs that mounts the host read-only over 9p. Prints the cache dir on success.
# Cache: $KILN_VM_CACHE or /var/cache/kiln-vm. Exits 77 when the kernel packages cannot be fetched here.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cache=${KILN_VM_CACHE:-/var/cache/kiln-vm}
mkdir -p "$cache"
cd "$cache"

version=$(apt-cache policy linux-source-6.12 2>/dev/null | awk '/Candidate:/ {print $2}')
if [ -z "$version" ] || [ "$version" = "(none)" ]; then
  echo "SKIP: linux-source-6.12 is not in the apt lists (bookworm-security/backports missing)" >&2
  exit 77
fi
abi=$(echo "$version" | sed -E 's/^([0-9]+\.[0-9]+\.[0-9]+)-.*/\1+deb12/')
# The stamp names the initramfs inputs too, so a change to them rebuilds it.
inputs=$(cat "$here/guest-init.sh" "$here/initramfs.py" | sha1sum | cut -c1-12)
ready="$cache/ready-$abi-$inputs"
if [ -f "$ready" ]; then
  echo "$cache/$abi"
  exit 0
fi
work="$cache/$abi"
if [ -f "$work/vmlinuz" ] && [ -f "$work/vkms.ko" ]; then
  # Kernel and vkms are there: only the initramfs is stale.
  python3 "$here/initramfs.py" --modules "$work/root/lib/modules/$abi-amd64" --vkms "$work/vkms.ko" \
    --init "$here/guest-init.sh" --output "$work/initramfs.cpio.gz"
  touch "$ready"
  echo "$work"
  exit 0
fi
rm -rf "$work"
mkdir -p "$work/debs"
(
  cd "$work/debs"
  apt-get download -q "linux-image-$abi-amd64-unsigned" "linux-headers-$abi-amd64" "linux-headers-$abi-common" \
    "linux-kbuild-$abi" "linux-source-6.12=$version" >/dev/null 2>&1
) || { echo "SKIP: cannot download the 6.12 kernel packages ($abi)" >&2; exit 77; }
for deb in "$work"/debs/*.deb; do dpkg-deb -x "$deb" "$work/root"; done

# vkms, out of tree against the matching headers (which include the common Makefile by absolute path).
headers="$work/root/usr/src/linux-headers-$abi-amd64"
sed -i "s|include /usr/src/|include $work/root/usr/src/|" "$headers/Makefile"
tar -xJf "$work/root/usr/src/linux-source-6.12.tar.xz" -C "$work" linux-source-6.12/drivers/gpu/drm/vkms
make -s -C "$headers" M="$work/linux-source-6.12/drivers/gpu/drm/vkms" modules CONFIG_DRM_VKMS=m \
  CONFIG_DEBUG_INFO_BTF_MODULES= -j"$(nproc)" >/dev/null
cp "$work/linux-source-6.12/drivers/gpu/drm/vkms/vkms.ko" "$work/vkms.ko"
rm -rf "$work/linux-source-6.12" "$work/root/usr/src/linux-source-6.12.tar.xz" "$work/debs"

/usr/sbin/depmod -b "$work/root" "$abi-amd64"

# initramfs: busybox, the modules (decompressed: busybox insmod hands the kernel raw ELF), and /init.
python3 "$here/initramfs.py" --modules "$work/root/lib/modules/$abi-amd64" --vkms "$work/vkms.ko" \
  --init "$here/guest-init.sh" --output "$work/initramfs.cpio.gz"
cp "$work/root/boot/vmlinuz-$abi-amd64" "$work/vmlinuz"
touch "$ready"
echo "$work"
