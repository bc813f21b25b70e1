"""Test-controlled fences from Python in the guest: a sw_sync timeline (debugfs), its fences as sync_file fds, udmabuf
buffers, and dma-buf implicit sync (IMPORT/EXPORT_SYNC_FILE). Standard library only; ioctl numbers from the kernel's
uapi (sw_sync's are private to drivers/dma-buf/sw_sync.c)."""
import fcntl
import os
import select
import struct

SW_SYNC_PATH = "/sys/kernel/debug/sync/sw_sync"


def _ioc(direction, kind, nr, size):
    return (direction << 30) | (size << 16) | (ord(kind) << 8) | nr


_WRITE, _READWRITE = 1, 3
SW_SYNC_IOC_CREATE_FENCE = _ioc(_READWRITE, "W", 0, 40)  # struct sw_sync_create_fence_data
SW_SYNC_IOC_INC = _ioc(_WRITE, "W", 1, 4)  # __u32
UDMABUF_CREATE = _ioc(_WRITE, "u", 0x42, 24)  # struct udmabuf_create
DMA_BUF_IOCTL_EXPORT_SYNC_FILE = _ioc(_READWRITE, "b", 2, 8)
DMA_BUF_IOCTL_IMPORT_SYNC_FILE = _ioc(_WRITE, "b", 3, 8)
DMA_BUF_SYNC_READ, DMA_BUF_SYNC_WRITE = 1, 2
UDMABUF_FLAGS_CLOEXEC = 1


class Timeline:
    """A sw_sync timeline: fences on it signal when its counter reaches their value. Closing it signals the rest."""

    def __init__(self):
        self.fd = os.open(SW_SYNC_PATH, os.O_RDWR | os.O_CLOEXEC)
        self.next_value = 0

    def fence(self, name="kiln-test"):
        """A new sync_file fd that signals at the next increment."""
        self.next_value += 1
        arg = bytearray(struct.pack("I32si", self.next_value, name.encode()[:31], -1))
        fcntl.ioctl(self.fd, SW_SYNC_IOC_CREATE_FENCE, arg)
        return struct.unpack("I32si", arg)[2]

    def inc(self, count=1):
        fcntl.ioctl(self.fd, SW_SYNC_IOC_INC, struct.pack("I", count))

    def close(self):
        os.close(self.fd)


def signalled(fence_fd):
    """True when the fence (a sync_file or an exported dma-buf fence) has signalled: it polls readable."""
    poller = select.poll()
    poller.register(fence_fd, select.POLLIN)
    return bool(poller.poll(0))


def udmabuf(size):
    """A udmabuf of `size` bytes (page multiple) over a sealed memfd: (dma-buf fd, memfd)."""
    memfd = os.memfd_create("kiln-fence-test", os.MFD_CLOEXEC | os.MFD_ALLOW_SEALING)
    os.ftruncate(memfd, size)
    fcntl.fcntl(memfd, fcntl.F_ADD_SEALS, fcntl.F_SEAL_SHRINK)
    with open("/dev/udmabuf", "rb", buffering=0) as dev:
        # A mutable argument makes fcntl.ioctl return the call's result: here the new fd.
        arg = bytearray(struct.pack("IIQQ", memfd, UDMABUF_FLAGS_CLOEXEC, 0, size))
        fd = fcntl.ioctl(dev.fileno(), UDMABUF_CREATE, arg, True)
    return fd, memfd


def import_fence(dmabuf_fd, fence_fd, flags=DMA_BUF_SYNC_WRITE):
    """Adds the fence to the dma-buf's reservation (a write fence: readers must wait for it)."""
    fcntl.ioctl(dmabuf_fd, DMA_BUF_IOCTL_IMPORT_SYNC_FILE, struct.pack("Ii", flags, fence_fd))


def export_fence(dmabuf_fd, flags=DMA_BUF_SYNC_READ):
    """A sync_file of the fences a reader (flags READ) of the dma-buf would wait for."""
    arg = bytearray(struct.pack("Ii", flags, -1))
    fcntl.ioctl(dmabuf_fd, DMA_BUF_IOCTL_EXPORT_SYNC_FILE, arg)
    return struct.unpack("Ii", arg)[1]
