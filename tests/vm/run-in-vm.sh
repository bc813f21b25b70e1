#!/usr/bin/env bash
# Runs a command inside the VM (QEMU; KVM only where vmx/svm exist, else TCG) and returns its exit status.
# Usage: run-in-vm.sh OUTDIR COMMAND...   OUTDIR (created) receives output.log, status and serial.log; it is
# mounted read-write in the guest at the same path, the host's / read-only (with a tmpfs overlay) everywhere else.
# KILN_VM_DEVICES: more QEMU arguments for this boot (e.g. a virtio-gpu with two heads), split on spaces.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
outdir=$1
shift
image=$("$here/prepare.sh") || exit $?
mkdir -p "$outdir"
outdir=$(cd "$outdir" && pwd)
rm -f "$outdir/status" "$outdir/output.log"
{
  echo "export XDG_RUNTIME_DIR=/run/user-test PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root"
  echo "mkdir -p -m 0700 /run/user-test"
  printf '%q ' "$@"
  echo
} > "$outdir/run.sh"
accel=tcg
if grep -qE 'vmx|svm' /proc/cpuinfo && [ -w /dev/kvm ]; then accel=kvm; fi
boot() {
  timeout "${KILN_VM_TIMEOUT:-300}" qemu-system-x86_64 -accel "$accel" -m 2048 -smp 2 -cpu max \
    -display none -no-reboot -monitor none -serial "file:$outdir/serial.log" \
    -kernel "$image/vmlinuz" -initrd "$image/initramfs.cpio.gz" \
    -append "console=ttyS0 panic=-1 quiet kiln.testdir=$outdir" \
    -fsdev "local,id=hostroot,path=/,security_model=none,readonly=on,multidevs=remap" \
    -device virtio-9p-pci,fsdev=hostroot,mount_tag=hostroot \
    -fsdev "local,id=testdir,path=$outdir,security_model=none,multidevs=remap" \
    -device virtio-9p-pci,fsdev=testdir,mount_tag=testdir ${KILN_VM_DEVICES:-} || true
}
start=$(date +%s%N)
# The guest kernel under TCG now and then dies while booting (an oops in early boot, before any module or test
# code: an int3 oops in sched_clock_cpu, a NULL dereference in devtmpfs; twice in this project's runs so far). Only a guest that never reached the command is booted again (the guest
# creates output.log as it starts the command), so a test's own failure is never retried.
for attempt in 1 2 3; do
  boot
  if [ -f "$outdir/status" ] || [ -f "$outdir/output.log" ] || [ $attempt -eq 3 ]; then
    break
  fi
  echo "kiln-vm: the guest died before it ran the command (boot $attempt: $(grep -m1 -E 'panic|Oops|BUG' \
    "$outdir/serial.log" 2>/dev/null || echo 'no panic line')); booting again" >&2
  mv -f "$outdir/serial.log" "$outdir/serial-boot$attempt.log" 2>/dev/null || true
done
elapsed_ms=$(( ($(date +%s%N) - start) / 1000000 ))
elapsed="$((elapsed_ms / 1000)).$(printf %03d $((elapsed_ms % 1000)))"
if [ ! -f "$outdir/status" ]; then
  echo "kiln-vm: the guest did not finish the command (${elapsed}s); serial log:" >&2
  tail -40 "$outdir/serial.log" >&2
  exit 1
fi
status=$(cat "$outdir/status")
echo "kiln-vm: '$*' exited $status in a ${elapsed}s VM run ($accel)" >&2
exit "$status"
