#!/usr/bin/env python3
"""Builds the guest's initramfs: static busybox, the kernel modules the rig needs (with their dependencies, in load
order, decompressed) and the guest init script. Writes a gzip-compressed newc cpio."""
import argparse
import gzip
import lzma
import os
import shutil
import stat
import subprocess
from pathlib import Path

# What the guest needs: the 9p root and overlay, the DRM devices, and evdev and uinput for the session tests' virtual
# input devices. vkms and sw_sync are built by prepare.sh.
WANTED = ["9pnet_virtio", "9p", "overlay", "vgem", "virtio-gpu", "evdev", "uinput"]


def module_deps(modules_dir):
    deps, paths = {}, {}
    for line in (modules_dir / "modules.dep").read_text().splitlines():
        path, _, rest = line.partition(":")
        name = Path(path).name.split(".ko")[0].replace("-", "_")
        paths[name] = modules_dir / path
        deps[name] = [Path(p).name.split(".ko")[0].replace("-", "_") for p in rest.split()]
    return deps, paths


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--modules", type=Path, required=True)
    parser.add_argument("--module", type=Path, action="append", default=[],
                        help="an out-of-tree module, loaded after the ones it depends on")
    parser.add_argument("--init", type=Path, required=True)
    parser.add_argument("--output", type=Path, required=True)
    args = parser.parse_args()

    deps, paths = module_deps(args.modules)
    order = []

    def visit(name):
        name = name.replace("-", "_")
        if name in order or name not in paths:
            return
        for dep in deps[name]:
            visit(dep)
        order.append(name)

    for name in WANTED:
        visit(name)
    for module in args.module:
        depends = subprocess.run(["/usr/sbin/modinfo", "-F", "depends", str(module)], capture_output=True, text=True,
                                 check=True).stdout.strip()
        for name in depends.split(","):
            if name:
                visit(name)

    staging = args.output.with_suffix(".d")
    shutil.rmtree(staging, ignore_errors=True)
    for d in ("bin", "dev", "proc", "sys", "lib/modules", "host", "newroot", "overlay"):
        (staging / d).mkdir(parents=True, exist_ok=True)
    shutil.copy2("/bin/busybox", staging / "bin/busybox")
    shutil.copy2(args.init, staging / "init")
    os.chmod(staging / "init", 0o755)
    load = []
    for name in order:
        src = paths[name]
        data = src.read_bytes()
        if src.suffix == ".xz":
            data = lzma.decompress(data)
        (staging / "lib/modules" / f"{name}.ko").write_bytes(data)
        load.append(f"{name}.ko")
    for module in args.module:
        shutil.copy2(module, staging / "lib/modules" / module.name)
        load.append(module.name)
    (staging / "modules.order").write_text("\n".join(load) + "\n")

    cpio = subprocess.run("find . | cpio -o -H newc --quiet", shell=True, cwd=staging, capture_output=True, check=True)
    args.output.write_bytes(gzip.compress(cpio.stdout, compresslevel=6))
    shutil.rmtree(staging)


if __name__ == "__main__":
    main()
