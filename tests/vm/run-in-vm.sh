#!/usr/bin/env bash
# Runs a command inside the VM (QEMU; KVM only where vmx/svm exist, else TCG) and returns its exit status.
# Usage: run-in-vm.sh OUTDIR COMMAND...   OUTDIR (created) receives output.log, status and serial.log; it is
# mounted read-write in the guest at the same path, the host's / read-only (with a tmpfs overlay) everywhere else.
# KILN_VM_DEVICES: more QEMU arguments for this boot (e.g. a virtio-gpu with two heads), split on spaces.
# A guest is stopped when it shows no sign of life (its serial log and the command's output both unchanged) for
# KILN_VM_STALL seconds (default 240), or when the whole run passes KILN_VM_TIMEOUT (default 560, under meson's 600):
# under TCG on a busy host a guest that is merely slow keeps running, and one that hangs is named with where it was.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
outdir=$1
shift
image=$("$here/prepare.sh") || exit $?
mkdir -p "$outdir"
outdir=$(cd "$outdir" && pwd)
rm -f "$outdir/status" "$outdir/output.log"
{
  # Unbuffered: output.log grows as the test goes, which is how the watchdog below tells slow from hung.
  echo "export XDG_RUNTIME_DIR=/run/user-test PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root PYTHONUNBUFFERED=1"
  echo "mkdir -p -m 0700 /run/user-test"
  printf '%q ' "$@"
  echo
} > "$outdir/run.sh"
accel=tcg
if grep -qE 'vmx|svm' /proc/cpuinfo && [ -w /dev/kvm ]; then accel=kvm; fi
stall_limit=${KILN_VM_STALL:-240}
run_deadline=$(( $(date +%s) + ${KILN_VM_TIMEOUT:-560} ))
# Sizes of the guest's two outputs: a change is a sign of life.
signs_of_life() {
  { stat -c %s "$outdir/serial.log" "$outdir/output.log" 2>/dev/null || true; } | tr '\n' ' '
}
# Stops QEMU ($1) once the guest has been silent for stall_limit seconds or the run's deadline passed; the reason
# goes to $outdir/stopped.
watchdog() {
  local qemu=$1 last now quiet_since
  last=$(signs_of_life)
  quiet_since=$(date +%s)
  while kill -0 "$qemu" 2>/dev/null; do
    sleep 5
    now=$(signs_of_life)
    if [ "$now" != "$last" ]; then
      last=$now
      quiet_since=$(date +%s)
    elif [ $(( $(date +%s) - quiet_since )) -ge "$stall_limit" ]; then
      echo "the guest showed no sign of life for ${stall_limit}s" > "$outdir/stopped"
      kill "$qemu" 2>/dev/null
      return
    fi
    if [ "$(date +%s)" -ge "$run_deadline" ]; then
      echo "the run passed its ${KILN_VM_TIMEOUT:-560}s limit while the guest was still going" > "$outdir/stopped"
      kill "$qemu" 2>/dev/null
      return
    fi
  done
}
boot() {
  rm -f "$outdir/stopped"
  qemu-system-x86_64 -accel "$accel" -m 2048 -smp 2 -cpu max \
    -display none -no-reboot -monitor none -serial "file:$outdir/serial.log" \
    -kernel "$image/vmlinuz" -initrd "$image/initramfs.cpio.gz" \
    -append "console=ttyS0 panic=-1 quiet kiln.testdir=$outdir" \
    -fsdev "local,id=hostroot,path=/,security_model=none,readonly=on,multidevs=remap" \
    -device virtio-9p-pci,fsdev=hostroot,mount_tag=hostroot \
    -fsdev "local,id=testdir,path=$outdir,security_model=none,multidevs=remap" \
    -device virtio-9p-pci,fsdev=testdir,mount_tag=testdir ${KILN_VM_DEVICES:-} &
  local qemu=$!
  watchdog "$qemu" &
  local dog=$!
  wait "$qemu" || true
  kill "$dog" 2>/dev/null || true
  wait "$dog" 2>/dev/null || true
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
  why=$(cat "$outdir/stopped" 2>/dev/null || echo "QEMU exited without the command's status")
  echo "kiln-vm: the guest did not finish the command (${elapsed}s): $why; where it was: the command's last" \
    "output lines, then the serial log's:" >&2
  tail -15 "$outdir/output.log" >&2 2>/dev/null || echo "(the command never started)" >&2
  tail -40 "$outdir/serial.log" >&2
  exit 1
fi
status=$(cat "$outdir/status")
echo "kiln-vm: '$*' exited $status in a ${elapsed}s VM run ($accel)" >&2
exit "$status"
