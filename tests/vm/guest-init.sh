#!/bin/busybox sh
# The guest's /init: load modules, mount the host read-only over 9p under a tmpfs overlay, mount the test dir
# read-write, run the test command in that root, record its status, power off.
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
for m in $(cat /modules.order); do
  insmod /lib/modules/$m $( [ "$m" = vkms.ko ] && echo enable_writeback=1 ) 2>/dev/null || echo "kiln-vm: insmod $m failed"
done
testdir=$(sed -n 's/.*kiln.testdir=\([^ ]*\).*/\1/p' /proc/cmdline)
mount -t 9p -o trans=virtio,version=9p2000.L,ro,msize=512000,cache=loose hostroot /host
mount -t tmpfs -o size=512m tmpfs /overlay
mkdir -p /overlay/upper /overlay/work
mount -t overlay overlay -o lowerdir=/host,upperdir=/overlay/upper,workdir=/overlay/work /newroot
mount -t proc proc /newroot/proc
mount -t sysfs sys /newroot/sys
# debugfs: sw_sync's timelines live at /sys/kernel/debug/sync/sw_sync.
mount -t debugfs debugfs /newroot/sys/kernel/debug
mount -t devtmpfs dev /newroot/dev
mkdir -p /newroot/dev/pts /newroot/dev/shm
mount -t devpts devpts /newroot/dev/pts
mount -t tmpfs tmpfs /newroot/dev/shm
# /tmp and /run stay the overlay's: the host's files (a checkout under /tmp, say) show through, writes stay here.
# The test dir last, so no tmpfs above hides it.
mkdir -p "/newroot$testdir"
mount -t 9p -o trans=virtio,version=9p2000.L,msize=512000 testdir "/newroot$testdir"
chroot /newroot /bin/sh -c "cd '$testdir' && exec /bin/sh ./run.sh" > "/newroot$testdir/output.log" 2>&1
echo $? > "/newroot$testdir/status"
sync
poweroff -f
