"""The protocol fuzzer's redraw scenario: a client maps xdg toplevels with wl_shm buffers and keeps redrawing them while
it changes buffer scale and transform, opaque and input regions, viewports, damage and subsurfaces, and destroys them
in random orders.

Random requests alone never map a surface (that takes a configure acked by its serial and a real buffer), so the
fuzzer's random clients never reach the frame pipeline with client content; this client does, staying well-formed
(sizes divisible by every scale, viewport sources inside the buffer) so its surfaces stay mapped most of the time.
Everything it picks comes from the fuzzer's seeded random generator.
"""
import os
import struct
import time

import wire

# Buffer sizes divisible by every scale used, so no size is ever invalid for the scale it is shown at.
SIZES = [(96, 72), (120, 96), (48, 48), (192, 144)]
SCALES = [1, 2, 3, 4]
FORMATS = [0, 1]  # wl_shm argb8888, xrgb8888
# wl_output too: kiln sends wl_surface.enter only for outputs the client has bound.
WANTED = {"wl_compositor": 4, "wl_shm": 1, "xdg_wm_base": 2, "wp_viewporter": 1, "wl_subcompositor": 1,
          "wl_output": 1}


class Surface:
    """A wl_surface this client draws into, with the state it last asked for (to keep viewport sources valid)."""

    def __init__(self, surface_id):
        self.id = surface_id
        self.buffer = None        # (width, height) of the attached buffer
        self.scale = 1
        self.transform = 0
        self.viewport = None
        self.source = None        # (x, y, width, height) in surface coordinates, floats
        self.destination = None   # (width, height)
        self.children = []        # Subsurface
        self.entered = False      # wl_surface.enter: kiln shows it on an output

    def size(self):
        """The surface size the buffer gives before any viewport: transformed, divided by the scale."""
        width, height = self.buffer or (0, 0)
        if self.transform & 1:
            width, height = height, width
        return width // self.scale, height // self.scale


class Subsurface:
    def __init__(self, surface, subsurface_id, parent):
        self.surface, self.id, self.parent = surface, subsurface_id, parent


class Toplevel:
    def __init__(self, surface, xdg_surface, toplevel_id):
        self.surface, self.xdg_surface, self.id = surface, xdg_surface, toplevel_id
        self.serial = None    # the latest xdg_surface.configure not yet acked
        self.mapped = False


class RedrawClient:
    """One connection that maps toplevels and redraws them `steps` times with random changes, driven by `rng`."""

    def __init__(self, path, rng, interfaces, stats):
        self.rng, self.interfaces, self.stats = rng, interfaces, stats
        self.conn = wire.Connection(path)
        self.objects = {1: "wl_display"}
        self.next_id = 2
        self.globals = {}
        self.bound = {}
        self.error = None
        self.buffers = []         # (wl_buffer id, width, height)
        self.toplevels = []
        self.regions = []         # wl_region ids not destroyed yet (some outlive the surfaces they were set on)
        self.callbacks = set()    # wl_callback ids not done yet

    # --- the wire -------------------------------------------------------------------------------------------------
    def new_id(self, interface):
        object_id = self.next_id
        self.next_id += 1
        self.objects[object_id] = interface
        return object_id

    def send(self, target, request, *values, fds=()):
        """Encodes `request` on `target` from the XML signature; False once kiln has cut the connection."""
        interface = self.interfaces[self.objects[target]]
        opcode, message = next((i, m) for i, m in enumerate(interface.requests) if m.name == request)
        body = b""
        values = iter(values)
        for arg in message.args:
            if arg.type == "fd":
                continue  # sent beside the message, not in it
            value = next(values)
            if arg.type == "int":
                body += struct.pack("<i", value)
            elif arg.type == "fixed":
                body += struct.pack("<i", round(value * 256))
            elif arg.type in ("uint", "object", "new_id"):
                body += struct.pack("<I", value or 0)
            elif arg.type == "string":
                body += wire.encode_string(value)
        if message.destructor:
            self.objects.pop(target, None)
        if self.conn.closed or not self.conn.send(wire.frame(target, opcode, body), fds):
            return False
        self.stats.requests += 1
        return True

    def handle(self, events):
        for object_id, opcode, body in events:
            interface = self.objects.get(object_id)
            if interface == "wl_display" and opcode == 0:
                failing, code = struct.unpack_from("<II", body)
                message, _ = wire.decode_string(body, 8)
                self.error = f"{self.objects.get(failing, '?')}#{failing} error {code}: {message!r}"
            elif interface == "wl_registry" and opcode == 0:
                (name,) = struct.unpack_from("<I", body)
                iface, pos = wire.decode_string(body, 4)
                (version,) = struct.unpack_from("<I", body, pos)
                self.globals[iface.decode()] = (name, version)
            elif interface == "xdg_wm_base" and opcode == 0:  # ping
                self.send(object_id, "pong", struct.unpack_from("<I", body)[0])
            elif interface == "xdg_surface" and opcode == 0:  # configure
                for toplevel in self.toplevels:
                    if toplevel.xdg_surface == object_id:
                        toplevel.serial = struct.unpack_from("<I", body)[0]
            elif interface == "wl_surface" and opcode == 0:  # enter
                for surface in self.all_surfaces():
                    if surface.id == object_id and not surface.entered:
                        surface.entered = True
                        self.stats.redraw_shown += 1
            elif interface == "wl_callback" and opcode == 0:
                self.callbacks.discard(object_id)

    def pump(self, block=False):
        try:
            while not self.conn.closed:
                events = self.conn.receive(block=block)
                if not events:
                    return
                self.handle(events)
                block = False
        except (TimeoutError, OSError):
            return

    def roundtrip(self):
        callback = self.new_id("wl_callback")
        self.callbacks.add(callback)
        if not self.send(1, "sync", callback):
            return False
        deadline = time.monotonic() + self.conn.timeout
        while callback in self.callbacks and not self.conn.closed:
            if time.monotonic() > deadline:
                raise TimeoutError("kiln did not answer wl_display.sync")
            self.pump(block=True)
        return not self.conn.closed

    def wait_frame(self, callback, seconds):
        """Waits (briefly) for a frame callback, so kiln renders the state just committed before the next one."""
        deadline = time.monotonic() + seconds
        while callback in self.callbacks and not self.conn.closed and time.monotonic() < deadline:
            self.pump(block=False)
            time.sleep(0.004)

    # --- set-up ---------------------------------------------------------------------------------------------------
    def bind_all(self):
        """wl_registry.bind has an untyped new_id (interface string, version, id): framed by hand."""
        registry = next(i for i, name in self.objects.items() if name == "wl_registry")
        for name, version in WANTED.items():
            if name not in self.globals:
                return False  # restricted away: nothing to map with
            global_name, offered = self.globals[name]
            object_id = self.new_id(name)
            chosen = min(version, offered)
            body = struct.pack("<I", global_name) + wire.encode_string(name.encode()) + struct.pack("<II", chosen,
                                                                                                    object_id)
            if not self.conn.send(wire.frame(registry, 0, body)):
                return False
            self.bound[name] = (object_id, chosen)
        return True

    def connect(self):
        registry = self.new_id("wl_registry")
        self.send(1, "get_registry", registry)
        return self.roundtrip() and self.bind_all() and self.make_buffers()

    def global_id(self, name):
        return self.bound[name][0]

    def version(self, name):
        return self.bound[name][1]

    def make_buffers(self):
        """One pool holding a buffer of each size and format, filled with a colour each (half-transparent at times)."""
        layout, offset = [], 0
        for width, height in SIZES:
            for shm_format in FORMATS:
                layout.append((offset, width, height, shm_format))
                offset += width * height * 4
        fd = os.memfd_create("kiln-fuzz-redraw", os.MFD_CLOEXEC)
        try:
            for start, width, height, _ in layout:
                pixel = bytes([self.rng.randrange(256), self.rng.randrange(256), self.rng.randrange(256),
                               self.rng.choice([0xff, 0xff, 0x80])])
                os.pwrite(fd, pixel * (width * height), start)
            pool = self.new_id("wl_shm_pool")
            sent = self.send(self.global_id("wl_shm"), "create_pool", pool, offset, fds=[fd])
        finally:
            os.close(fd)
        if not sent:
            return False
        for start, width, height, shm_format in layout:
            buffer = self.new_id("wl_buffer")
            self.send(pool, "create_buffer", buffer, start, width, height, width * 4, shm_format)
            self.buffers.append((buffer, width, height))
        if self.rng.random() < 0.5:  # the buffers keep the pool's memory
            self.send(pool, "destroy")
        return not self.conn.closed

    # --- drawing --------------------------------------------------------------------------------------------------
    def all_surfaces(self):
        out = []

        def walk(surface):
            out.append(surface)
            for child in surface.children:
                walk(child.surface)

        for toplevel in self.toplevels:
            walk(toplevel.surface)
        return out

    def attach(self, surface, sizes=None):
        choices = [b for b in self.buffers if sizes is None or (b[1], b[2]) in sizes]
        buffer, width, height = self.rng.choice(choices)
        self.send(surface.id, "attach", buffer, 0, 0)
        surface.buffer = (width, height)

    def region(self, width, height):
        """A wl_region of a few rectangles (some past the surface, now and then a subtracted hole)."""
        region = self.new_id("wl_region")
        self.send(self.global_id("wl_compositor"), "create_region", region)
        for _ in range(self.rng.randint(1, 4)):
            x, y = self.rng.randrange(-8, max(width, 1)), self.rng.randrange(-8, max(height, 1))
            self.send(region, "add", x, y, self.rng.randint(1, width + 16), self.rng.randint(1, height + 16))
        if self.rng.random() < 0.3:
            self.send(region, "subtract", self.rng.randrange(0, max(width, 1)), self.rng.randrange(0, max(height, 1)),
                      self.rng.randint(1, 32), self.rng.randint(1, 32))
        return region

    def change_regions(self, surface):
        width, height = surface.size()
        for request in ("set_opaque_region", "set_input_region"):
            if self.rng.random() < 0.25:
                region = self.region(width, height) if self.rng.random() < 0.85 else 0
                self.send(surface.id, request, region)
                if region:
                    self.regions.append(region)
        # A region may go at once (its content was copied into the surface's pending state) or much later.
        while self.regions and self.rng.random() < 0.5:
            self.send(self.regions.pop(self.rng.randrange(len(self.regions))), "destroy")

    def change_viewport(self, surface):
        r = self.rng.random()
        if surface.viewport is None and r < 0.3:
            surface.viewport = self.new_id("wp_viewport")
            self.send(self.global_id("wp_viewporter"), "get_viewport", surface.viewport, surface.id)
        elif surface.viewport is not None and r < 0.1:
            self.send(surface.viewport, "destroy")  # shown unscaled and uncropped from this commit
            surface.viewport, surface.source, surface.destination = None, None, None
            return
        if surface.viewport is None:
            return
        if self.rng.random() < 0.5:
            surface.destination = (None if self.rng.random() < 0.2 else
                                   (self.rng.randint(1, 400), self.rng.randint(1, 300)))
            self.send(surface.viewport, "set_destination", *(surface.destination or (-1, -1)))
        if self.rng.random() < 0.5:
            surface.source = None if self.rng.random() < 0.2 else self.pick_source(surface)
            self.send(surface.viewport, "set_source", *(surface.source or (-1.0, -1.0, -1.0, -1.0)))

    def pick_source(self, surface):
        width, height = surface.size()
        if width < 1 or height < 1:
            return None
        whole = surface.destination is None  # without a destination the source size must be whole
        src_w = self.rng.randint(1, width) if whole else self.rng.uniform(0.5, width)
        src_h = self.rng.randint(1, height) if whole else self.rng.uniform(0.5, height)
        x = self.rng.randint(0, int(width - src_w)) if whole else self.rng.uniform(0, width - src_w)
        y = self.rng.randint(0, int(height - src_h)) if whole else self.rng.uniform(0, height - src_h)
        # Fixed-point rounding must not push the rectangle past the edge: round down to 1/256.
        return tuple(int(v * 256) / 256 for v in (x, y, src_w, src_h))

    def keep_viewport_valid(self, surface):
        """After a new buffer, scale or transform: a source that no longer fits is chosen again before the commit."""
        if surface.viewport is None or surface.source is None:
            return
        width, height = surface.size()
        x, y, src_w, src_h = surface.source
        whole = surface.destination is not None or (src_w.is_integer() and src_h.is_integer())
        if x + src_w <= width and y + src_h <= height and whole:
            return
        surface.source = self.pick_source(surface)
        self.send(surface.viewport, "set_source", *(surface.source or (-1.0, -1.0, -1.0, -1.0)))

    def damage(self, surface):
        width, height = surface.size()
        for _ in range(self.rng.choice([0, 1, 1, 3])):
            request = "damage_buffer" if self.version("wl_compositor") >= 4 and self.rng.random() < 0.5 else "damage"
            if self.rng.random() < 0.1:
                self.send(surface.id, request, 0, 0, 0x7FFFFFFF, 0x7FFFFFFF)  # "everything", as clients write it
            else:
                self.send(surface.id, request, self.rng.randrange(-4, width + 4), self.rng.randrange(-4, height + 4),
                          self.rng.randint(1, 64), self.rng.randint(1, 64))

    def change(self, surface, buffer_sizes=None):
        """One redraw's worth of random changes to `surface` (not yet committed)."""
        if surface.buffer is None or self.rng.random() < 0.4:
            self.attach(surface, buffer_sizes)
        if self.rng.random() < 0.2:
            surface.scale = self.rng.choice(SCALES)
            self.send(surface.id, "set_buffer_scale", surface.scale)
        if self.rng.random() < 0.2:
            surface.transform = self.rng.randrange(8)
            self.send(surface.id, "set_buffer_transform", surface.transform)
        self.change_viewport(surface)
        self.keep_viewport_valid(surface)
        self.change_regions(surface)
        self.damage(surface)

    def add_subsurface(self, parent):
        child = Surface(self.new_id("wl_surface"))
        self.send(self.global_id("wl_compositor"), "create_surface", child.id)
        subsurface = self.new_id("wl_subsurface")
        self.send(self.global_id("wl_subcompositor"), "get_subsurface", subsurface, child.id, parent.id)
        parent.children.append(Subsurface(child, subsurface, parent))
        self.send(subsurface, "set_position", self.rng.randrange(-20, 100), self.rng.randrange(-20, 80))
        if self.rng.random() < 0.5:
            self.send(subsurface, "set_desync")
        self.change(child, buffer_sizes=[(48, 48), (96, 72)])
        self.send(child.id, "commit")

    def remove_subsurface(self, parent):
        """Takes a child away in one of the orders clients use: role first, surface first, or viewport last."""
        entry = parent.children.pop(self.rng.randrange(len(parent.children)))
        order = self.rng.randrange(3)
        if order == 0:
            self.send(entry.id, "destroy")
            self.destroy_surface(entry.surface)
        elif order == 1:
            self.destroy_surface(entry.surface)  # the wl_subsurface is inert now, destroyed later
            self.send(entry.id, "destroy")
        else:
            self.send(entry.surface.id, "attach", 0, 0, 0)  # unmapped first, then taken apart
            self.send(entry.surface.id, "commit")
            self.send(entry.id, "destroy")
            self.destroy_surface(entry.surface)

    def destroy_surface(self, surface):
        """The wl_surface goes before or after its viewport; children it leaves behind stay inert until destroyed."""
        viewport_first = self.rng.random() < 0.5
        if surface.viewport is not None and viewport_first:
            self.send(surface.viewport, "destroy")
        self.send(surface.id, "destroy")
        if surface.viewport is not None and not viewport_first:
            self.send(surface.viewport, "destroy")  # an inert viewport
        for child in surface.children:
            if self.rng.random() < 0.5:
                self.send(child.id, "destroy")
                self.destroy_surface(child.surface)
            else:
                self.destroy_surface(child.surface)
                self.send(child.id, "destroy")
        surface.children = []

    def redraw(self, surface):
        """Changes to `surface` and its children, committed children first (a synced child applies with its parent)."""
        if surface.children and self.rng.random() < 0.3:
            child = self.rng.choice(surface.children)
            self.change(child.surface, buffer_sizes=[(48, 48), (96, 72)])
            if self.rng.random() < 0.3:
                self.send(child.id, "set_position", self.rng.randrange(-20, 100), self.rng.randrange(-20, 80))
            if self.rng.random() < 0.2:
                sibling = self.rng.choice([surface] + [c.surface for c in surface.children if c is not child])
                self.send(child.id, self.rng.choice(["place_above", "place_below"]), sibling.id)
            self.send(child.surface.id, "commit")
        if len(surface.children) < 3 and self.rng.random() < 0.1:
            self.add_subsurface(surface)
        elif surface.children and self.rng.random() < 0.05:
            self.remove_subsurface(surface)
        self.change(surface)

    # --- toplevels ------------------------------------------------------------------------------------------------
    def new_toplevel(self):
        surface = Surface(self.new_id("wl_surface"))
        self.send(self.global_id("wl_compositor"), "create_surface", surface.id)
        xdg_surface = self.new_id("xdg_surface")
        self.send(self.global_id("xdg_wm_base"), "get_xdg_surface", xdg_surface, surface.id)
        toplevel = Toplevel(surface, xdg_surface, self.new_id("xdg_toplevel"))
        self.send(xdg_surface, "get_toplevel", toplevel.id)
        self.send(toplevel.id, "set_title", b"kiln fuzz redraw")
        self.toplevels.append(toplevel)
        self.send(surface.id, "commit")  # the initial commit: kiln answers with a configure

    def map(self, toplevel):
        """Acks the configure kiln sent and commits a buffer: the toplevel is mapped from this commit."""
        if toplevel.serial is None:
            self.roundtrip()
        if toplevel.serial is None:
            return
        self.send(toplevel.xdg_surface, "ack_configure", toplevel.serial)
        toplevel.serial = None
        self.change(toplevel.surface)
        self.send(toplevel.surface.id, "commit")
        toplevel.mapped = True
        self.stats.redraw_maps += 1

    def unmap(self, toplevel):
        """A null buffer unmaps it; it maps again through a new initial commit and configure."""
        self.send(toplevel.surface.id, "attach", 0, 0, 0)
        self.send(toplevel.surface.id, "commit")
        toplevel.mapped = False
        toplevel.surface.buffer = None
        self.roundtrip()  # a configure sent before the unmap is void now: not to be acked
        toplevel.serial = None
        self.send(toplevel.surface.id, "commit")

    def close_toplevel(self, toplevel):
        """Role, xdg_surface, then the wl_surface (before or after its viewport) in the order xdg-shell asks for."""
        self.toplevels.remove(toplevel)
        if toplevel.mapped and self.rng.random() < 0.3:
            self.send(toplevel.surface.id, "attach", 0, 0, 0)
            self.send(toplevel.surface.id, "commit")
        self.send(toplevel.id, "destroy")
        self.send(toplevel.xdg_surface, "destroy")
        self.destroy_surface(toplevel.surface)

    def step(self):
        toplevel = self.rng.choice(self.toplevels)
        if not toplevel.mapped:
            self.map(toplevel)
            return
        if toplevel.serial is not None and self.rng.random() < 0.8:
            self.send(toplevel.xdg_surface, "ack_configure", toplevel.serial)
            toplevel.serial = None
        r = self.rng.random()
        if r < 0.04:
            self.unmap(toplevel)
            return
        if r < 0.07 and len(self.toplevels) > 1:
            self.close_toplevel(toplevel)
            return
        self.redraw(toplevel.surface)
        if self.rng.random() < 0.1:
            width, height = toplevel.surface.size()
            self.send(toplevel.xdg_surface, "set_window_geometry", self.rng.randrange(0, max(width // 2, 1)),
                      self.rng.randrange(0, max(height // 2, 1)), self.rng.randint(1, max(width, 1)),
                      self.rng.randint(1, max(height, 1)))
        callback = None
        if self.rng.random() < 0.5:
            callback = self.new_id("wl_callback")
            self.callbacks.add(callback)
            self.send(toplevel.surface.id, "frame", callback)
        self.send(toplevel.surface.id, "commit")
        self.stats.redraw_commits += 1
        if callback is not None and self.rng.random() < 0.5:
            self.wait_frame(callback, 0.1)

    def opaque_switch_at_destroy(self):
        """The sequence behind a leak the random runs found about once in four minutes (kiln's log, at exit): a
        synchronized subsurface shown with an argb buffer and an opaque region of two rectangles, then given an
        xrgb buffer its parent never commits, then destroyed: wlroots applies that cached state while the surface
        goes, recomputing the opaque region over the old one. Run once per fuzz run, before the random sessions."""
        parent = Surface(self.new_id("wl_surface"))
        self.send(self.global_id("wl_compositor"), "create_surface", parent.id)
        child = Surface(self.new_id("wl_surface"))
        self.send(self.global_id("wl_compositor"), "create_surface", child.id)
        subsurface = self.new_id("wl_subsurface")
        self.send(self.global_id("wl_subcompositor"), "get_subsurface", subsurface, child.id, parent.id)
        argb, xrgb = self.buffers[0][0], self.buffers[1][0]  # the first size, in both formats
        region = self.new_id("wl_region")
        self.send(self.global_id("wl_compositor"), "create_region", region)
        self.send(region, "add", 0, 0, 10, 10)
        self.send(region, "add", 20, 20, 10, 10)
        self.send(child.id, "attach", argb, 0, 0)
        self.send(child.id, "set_opaque_region", region)
        self.send(child.id, "commit")
        self.send(parent.id, "commit")  # applies the child's state: an opaque region of two boxes
        self.send(child.id, "attach", xrgb, 0, 0)
        self.send(child.id, "commit")   # cached until the parent commits, which it never does
        self.send(child.id, "destroy")
        self.send(subsurface, "destroy")
        self.send(parent.id, "destroy")
        self.send(region, "destroy")
        return self.roundtrip()

    def run(self, steps):
        """Maps 1-3 toplevels and redraws them `steps` times; then leaves in order or just hangs up."""
        self.stats.redraw_sessions += 1
        for _ in range(self.rng.randint(1, 3)):
            self.new_toplevel()
        self.roundtrip()
        for toplevel in list(self.toplevels):
            self.map(toplevel)
        for _ in range(steps):
            if self.conn.closed:
                break
            if len(self.toplevels) < 3 and self.rng.random() < 0.02:
                self.new_toplevel()
            self.step()
            self.pump()
            if self.rng.random() < 0.05:
                self.roundtrip()
        if not self.conn.closed and self.rng.random() < 0.5:
            for toplevel in list(self.toplevels):
                self.close_toplevel(toplevel)
            while self.regions:
                self.send(self.regions.pop(), "destroy")
            self.roundtrip()
        if self.conn.closed:
            self.pump(block=True)
        if self.error:
            self.stats.redraw_errors.append(self.error)
        self.conn.close()
