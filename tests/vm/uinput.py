"""Virtual input devices through /dev/uinput (linux/uinput.h), with the ioctls written out: a keyboard and a
relative pointer that a test plugs in, types or moves with, and unplugs. Python 3 standard library only."""
import fcntl
import os
import struct
import time

# linux/uinput.h: _IOW('U', 100..102, int), _IOW('U', 3, struct uinput_setup), _IO('U', 1), _IO('U', 2)
UI_SET_EVBIT, UI_SET_KEYBIT, UI_SET_RELBIT = 0x40045564, 0x40045565, 0x40045566
UI_DEV_SETUP, UI_DEV_CREATE, UI_DEV_DESTROY = 0x405C5503, 0x5501, 0x5502
# linux/input-event-codes.h
EV_SYN, EV_KEY, EV_REL = 0x00, 0x01, 0x02
SYN_REPORT = 0
REL_X, REL_Y = 0x00, 0x01
BTN_LEFT, BTN_RIGHT, BTN_MIDDLE = 0x110, 0x111, 0x112
KEY_A = 30
BUS_VIRTUAL = 0x06


class UinputDevice:
    """One device: created in __init__, gone after destroy() (the kernel unplugs it, udevd announces the removal)."""

    def __init__(self, name, keys=(), rel_axes=()):
        self.fd = os.open("/dev/uinput", os.O_WRONLY | os.O_NONBLOCK | os.O_CLOEXEC)
        try:
            if keys:
                fcntl.ioctl(self.fd, UI_SET_EVBIT, EV_KEY)
                for key in keys:
                    fcntl.ioctl(self.fd, UI_SET_KEYBIT, key)
            if rel_axes:
                fcntl.ioctl(self.fd, UI_SET_EVBIT, EV_REL)
                for axis in rel_axes:
                    fcntl.ioctl(self.fd, UI_SET_RELBIT, axis)
            # struct uinput_setup: struct input_id (bustype, vendor, product, version), name[80], ff_effects_max
            setup = struct.pack("=HHHH80sI", BUS_VIRTUAL, 0x4B49, 0x4C4E, 1, name.encode(), 0)
            fcntl.ioctl(self.fd, UI_DEV_SETUP, setup)
            fcntl.ioctl(self.fd, UI_DEV_CREATE)
        except OSError:
            os.close(self.fd)
            raise

    def emit(self, kind, code, value):
        # struct input_event on 64-bit: struct timeval (two longs), type, code, value; the kernel stamps the time.
        os.write(self.fd, struct.pack("=qqHHi", 0, 0, kind, code, value))

    def sync(self):
        self.emit(EV_SYN, SYN_REPORT, 0)

    def tap(self, key):
        """Press and release `key`, each its own report."""
        for value in (1, 0):
            self.emit(EV_KEY, key, value)
            self.sync()
            time.sleep(0.05)

    def move(self, dx, dy):
        self.emit(EV_REL, REL_X, dx)
        self.emit(EV_REL, REL_Y, dy)
        self.sync()

    def destroy(self):
        if self.fd >= 0:
            fcntl.ioctl(self.fd, UI_DEV_DESTROY)
            os.close(self.fd)
            self.fd = -1


def keyboard(name="kiln-vm keyboard"):
    # Every key from KEY_ESC to KEY_COMPOSE: udev's input_id calls a device with the first 32 a full keyboard.
    return UinputDevice(name, keys=range(1, 128))


def pointer(name="kiln-vm mouse"):
    return UinputDevice(name, keys=(BTN_LEFT, BTN_RIGHT, BTN_MIDDLE), rel_axes=(REL_X, REL_Y))
