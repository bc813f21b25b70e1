#!/usr/bin/env python3
"""Runs inside the VM, where /dev/udmabuf exists: unit-dmabuf_mapping's udmabuf case (each read bracketed by a sync
start and end), then tests/protocol/dmabuf_on_cpu.py (kiln headless, GL llvmpipe) on real dma-bufs, udmabuf ones,
next to memfd-backed ones."""
import os
import subprocess
import sys
from pathlib import Path

if not os.path.exists("/dev/udmabuf"):
    print("FAIL: the guest has no /dev/udmabuf")
    sys.exit(1)
# Catch2 exits 4 when its only test case skipped: the udmabuf case must run here.
unit = Path(os.environ["KILN_BUILD_DIR"]) / "tests" / "unit" / "unit-dmabuf_mapping"
bracketed = subprocess.run([str(unit), "a udmabuf's reads are bracketed by DMA_BUF_IOCTL_SYNC"],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=120)
print(bracketed.stdout)
if bracketed.returncode != 0:
    print(f"FAIL: unit-dmabuf_mapping's udmabuf case exited {bracketed.returncode}")
    sys.exit(1)
print("ok: a udmabuf's reads are bracketed by DMA_BUF_IOCTL_SYNC (unit-dmabuf_mapping in the guest)")
runtime = Path("/run/user-test")
runtime.mkdir(mode=0o700, exist_ok=True)
test = Path(__file__).resolve().parents[1] / "protocol" / "dmabuf_on_cpu.py"
# Each line passed on as it comes: the rig's watchdog tells a slow guest from a hung one by its output growing.
test_run = subprocess.Popen([sys.executable, str(test)], env=dict(os.environ, XDG_RUNTIME_DIR=str(runtime)),
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
seen = []
for line in test_run.stdout:
    print(line, end="", flush=True)
    seen.append(line)
status = test_run.wait()
if not any("udmabuf: the rewritten buffer is shown" in line for line in seen) and status == 0:
    print("FAIL: the udmabuf case did not run")
    sys.exit(1)
sys.exit(status)
