#!/usr/bin/env bash
# One VM test: boots the guest and runs tests/vm/guest_<name>.py in it. Exit 77 (skip) when QEMU is missing or the
# kernel packages cannot be fetched; the guest script's status otherwise.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
name=$1
command -v qemu-system-x86_64 >/dev/null || { echo "SKIP: qemu-system-x86 is not installed"; exit 77; }
# Devices a test asks for (KILN_VM_DEVICES, e.g. a two-head virtio-gpu) must be ones this QEMU has.
for device in $(echo "${KILN_VM_DEVICES:-}" | grep -oE -- '-device [^, ]+' | cut -d' ' -f2); do
  qemu-system-x86_64 -device help 2>/dev/null | grep -q "name \"$device\"" ||
    { echo "SKIP: this QEMU has no $device device"; exit 77; }
done
"$here/prepare.sh" >/dev/null
status=$?
[ $status -eq 0 ] || exit $status
out=$(mktemp -d /tmp/kiln-vm-XXXXXX)
# Under TCG the guest runs many times slower than the host, and slower still beside other jobs: the harness's waits
# (tests/lib/rig_time.py: limits for a hang, not judgements of speed) stretch by this much inside it.
scale=${KILN_TEST_TIME_SCALE:-1}
if ! { grep -qE 'vmx|svm' /proc/cpuinfo && [ -w /dev/kvm ]; }; then scale=${KILN_TEST_TIME_SCALE:-6}; fi
"$here/run-in-vm.sh" "$out" env KILN_VM_OUT="$out" KILN_BUILD_DIR="${KILN_BUILD_DIR}" KILN_TEST_TIME_SCALE="$scale" \
  python3 "$here/guest_$name.py"
status=$?
cat "$out/output.log" 2>/dev/null
[ $status -eq 0 ] || tail -20 "$out/serial.log"
rm -rf "$out"
exit $status
