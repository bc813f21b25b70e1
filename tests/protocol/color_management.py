#!/usr/bin/env python3
"""wp_color_manager_v1 on headless kiln. The manager advertises exactly what kiln implements: perceptual and relative
intents; the ICC, parametric, set_primaries, set_luminances and mastering-display features; the transfer functions
BT.1886, gamma 2.2, extended linear, sRGB, PQ and HLG; the primaries sRGB, BT.2020, DCI-P3, Display P3 and Adobe RGB;
then done. Parametric descriptions (Display P3 + PQ with mastering metadata, BT.2020 + HLG, custom primaries) become
ready with distinct identities; degenerate primaries and a target volume outside the primary one fail `unsupported`.
ICC profiles written here byte by byte (tests/lib/icc_profiles.py): v4 and v2 RGB Display matrix/shaper profiles are
ready; a truncated file, an output-class, device-link-class or CMYK profile, garbage in a colorant tag, version 5, 32
MiB of garbage fail `unsupported`, kiln running on. The output's description (get_output) is ready and its
information is sRGB at 80 cd/m² (0.2 cd/m² black); the surface feedback's preferred description is that same record;
an unplugged output's object gives `failed` with `no_output`.
set_image_description/unset are double-buffered (kiln's --stats count surfaces with a description committed, with the
relative intent, with an ICC one); destroying the object unsets at the next commit; destroying the description does
not. Every protocol error of the XML is raised on the right object with the right code, and a second client that set
descriptions of its own keeps working."""
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
import icc_profiles  # noqa: E402
from kiln_harness import Kiln, check, run_test, stat  # noqa: E402
from wayland_wire import Connection, expect_protocol_error  # noqa: E402

MANAGER = "wp_color_manager_v1"
# wp_color_manager_v1 requests
GET_OUTPUT, GET_SURFACE, GET_FEEDBACK, ICC_CREATOR, PARAMS_CREATOR, WINDOWS_SCRGB = 1, 2, 3, 4, 5, 6
# enums
PERCEPTUAL, RELATIVE, SATURATION = 0, 1, 2
F_ICC, F_PARAMETRIC, F_SET_PRIMARIES, F_TF_POWER, F_LUMINANCES, F_MASTERING = 0, 1, 2, 3, 4, 5
P_SRGB, P_PAL_M, P_BT2020, P_DCI_P3, P_DISPLAY_P3, P_ADOBE = 1, 2, 6, 8, 9, 10
TF_BT1886, TF_GAMMA22, TF_GAMMA28, TF_EXT_LINEAR, TF_SRGB, TF_PQ, TF_HLG = 1, 2, 3, 5, 9, 11, 13
UNSUPPORTED_CAUSE, NO_OUTPUT_CAUSE = 1, 3
# wp_image_description_creator_params_v1 requests
P_CREATE, P_TF_NAMED, P_TF_POWER, P_PRIMARIES_NAMED, P_PRIMARIES, P_LUMINANCES, P_MASTERING_PRIMARIES, \
    P_MASTERING_LUMINANCE, P_MAX_CLL, P_MAX_FALL = range(10)
MiB = 1024 * 1024


def advertised(conn):
    manager = conn.bind(MANAGER, 1)
    conn.roundtrip()
    got = {op: sorted(e.args("u")[0] for e in conn.take(manager, op)) for op in range(4)}
    return manager, got, len(conn.take(manager, 4))


def params(conn, manager, *requests):
    """A parametric creator given `requests` ((opcode, args...)); returns the creator."""
    creator = conn.create("wp_image_description_creator_params_v1", manager, PARAMS_CREATOR)
    for opcode, *args in requests:
        conn.send(creator, opcode, *args)
    return creator


def create(conn, creator):
    return conn.create("wp_image_description_v1", creator, 0)


def outcome(conn, description):
    """('ready', identity) or ('failed', cause, message)."""
    event = conn.dispatch_until(lambda e: e.obj == description and e.opcode in (0, 1))
    conn.events.remove(event)
    if event.opcode == 1:
        return ("ready", event.args("u")[0])
    return ("failed",) + tuple(event.args("us"))


def u(v):
    return ("u", v)


def xy(*values):
    return [("i", round(v * 1e6)) for v in values]


P3_PQ = [(P_PRIMARIES_NAMED, u(P_DISPLAY_P3)), (P_TF_NAMED, u(TF_PQ)), (P_LUMINANCES, u(50), u(10000), u(203)),
         (P_MASTERING_PRIMARIES, *xy(0.68, 0.32, 0.265, 0.69, 0.15, 0.06, 0.3127, 0.329)),
         (P_MASTERING_LUMINANCE, u(50), u(1000)), (P_MAX_CLL, u(1000)), (P_MAX_FALL, u(400))]
BT2020_HLG = [(P_PRIMARIES_NAMED, u(P_BT2020)), (P_TF_NAMED, u(TF_HLG))]


def parametric(conn, manager, requests):
    return create(conn, params(conn, manager, *requests))


def icc_fd(data, size=None):
    fd = os.memfd_create("kiln-test-icc", os.MFD_CLOEXEC)
    os.write(fd, data)
    if size is not None:
        os.ftruncate(fd, size)
    return fd


def icc(conn, manager, data, offset=0, length=None, size=None):
    """An ICC description of `data` (in a memfd of `size` bytes, at `offset`); returns the description."""
    creator = conn.create("wp_image_description_creator_icc_v1", manager, ICC_CREATOR)
    fd = icc_fd(b"\0" * offset + data, size)
    conn.send(creator, 1, u(offset), u(len(data) if length is None else length), fds=[fd])
    os.close(fd)
    return create(conn, creator)


def information(conn, description):
    """The wp_image_description_info_v1 events, by opcode, up to done."""
    info = conn.create("wp_image_description_info_v1", description, 1)
    conn.dispatch_until(lambda e: e.obj == info and e.opcode == 0)
    events = conn.take(info)
    sig = {2: "iiiiiiii", 3: "u", 5: "u", 6: "uuu", 7: "iiiiiiii", 8: "uu", 9: "u", 10: "u"}
    return {e.opcode: tuple(e.args(sig[e.opcode])) for e in events if e.opcode in sig}, \
        [e.opcode for e in events]


def advertising(kiln):
    with Connection(kiln.client_env) as conn:
        check(conn.globals.get(MANAGER, (0, 0))[1] == 1, f"kiln offers {MANAGER} version 1")
        _, got, done = advertised(conn)
        check(got[0] == [PERCEPTUAL, RELATIVE], f"intents perceptual and relative ({got[0]})")
        check(got[1] == [F_ICC, F_PARAMETRIC, F_SET_PRIMARIES, F_LUMINANCES, F_MASTERING],
              f"features icc_v2_v4, parametric, set_primaries, set_luminances, set_mastering_display_primaries, "
              f"not set_tf_power, extended_target_volume or windows_scrgb ({got[1]})")
        check(got[2] == [TF_BT1886, TF_GAMMA22, TF_EXT_LINEAR, TF_SRGB, TF_PQ, TF_HLG],
              f"transfer functions bt1886, gamma22, ext_linear, srgb, st2084_pq, hlg ({got[2]})")
        check(got[3] == [P_SRGB, P_BT2020, P_DCI_P3, P_DISPLAY_P3, P_ADOBE],
              f"primaries srgb, bt2020, dci_p3, display_p3, adobe_rgb ({got[3]})")
        check(done == 1, "then one done")


def descriptions(kiln):
    with Connection(kiln.client_env) as conn:
        manager, _, _ = advertised(conn)
        made = {}
        for name, requests in (
                ("Display P3 + PQ with mastering metadata", P3_PQ),
                ("BT.2020 + HLG", BT2020_HLG),
                ("Adobe RGB + gamma 2.2 with luminances", [(P_PRIMARIES_NAMED, u(P_ADOBE)), (P_TF_NAMED, u(TF_GAMMA22)),
                                                          (P_LUMINANCES, u(2000), u(120), u(100))]),
                ("custom primaries + BT.1886", [(P_PRIMARIES, *xy(0.7, 0.3, 0.2, 0.7, 0.15, 0.05, 0.3127, 0.329)),
                                                (P_TF_NAMED, u(TF_BT1886))]),
                ("sRGB + extended linear", [(P_PRIMARIES_NAMED, u(P_SRGB)), (P_TF_NAMED, u(TF_EXT_LINEAR))]),
                ("DCI-P3 + sRGB", [(P_PRIMARIES_NAMED, u(P_DCI_P3)), (P_TF_NAMED, u(TF_SRGB))])):
            got = outcome(conn, parametric(conn, manager, requests))
            check(got[0] == "ready" and got[1] != 0, f"{name}: ready ({got})")
            made[name] = got[1]
        check(len(set(made.values())) == len(made), f"each record has its own identity ({made})")

        got = outcome(conn, parametric(conn, manager, [(P_PRIMARIES, *xy(0.3, 0.3, 0.3, 0.3, 0.3, 0.3, 0.3127, 0.329)),
                                                       (P_TF_NAMED, u(TF_SRGB))]))
        check(got[:2] == ("failed", UNSUPPORTED_CAUSE), f"collinear primaries fail unsupported ({got})")
        got = outcome(conn, parametric(conn, manager, [(P_PRIMARIES_NAMED, u(P_SRGB)), (P_TF_NAMED, u(TF_PQ)),
                                                       (P_MASTERING_PRIMARIES,
                                                        *xy(0.708, 0.292, 0.17, 0.797, 0.131, 0.046, 0.3127, 0.329))]))
        check(got[:2] == ("failed", UNSUPPORTED_CAUSE),
              f"BT.2020 mastering primaries in an sRGB container (extended_target_volume) fail unsupported ({got})")

        for name, data in (("v4 Display P3 matrix/shaper", icc_profiles.profile()),
                           ("v2 sRGB gamma 2.2 matrix/shaper", icc_profiles.profile(icc_profiles.SRGB, version=2)),
                           ("v4 ColorSpace class", icc_profiles.profile(device_class=b"spac"))):
            got = outcome(conn, icc(conn, manager, data))
            check(got[0] == "ready", f"ICC {name}: ready ({got})")
        got = outcome(conn, icc(conn, manager, icc_profiles.profile(), offset=4096))
        check(got[0] == "ready", f"an ICC profile at an offset in its file: ready ({got})")

        good = icc_profiles.profile()
        for name, data, length, size in (
                ("truncated to half", good[:len(good) // 2], None, None),
                ("an output (printer) class profile", icc_profiles.profile(device_class=b"prtr"), None, None),
                ("a device-link class profile", icc_profiles.profile(device_class=b"link"), None, None),
                ("a CMYK profile", icc_profiles.profile(colour_space=b"CMYK"), None, None),
                ("version 5", icc_profiles.profile(version=5), None, None),
                ("garbage in rXYZ", icc_profiles.profile(tags={b"rXYZ": b"\x13\x37" * 10}), None, None),
                ("garbage in every TRC", icc_profiles.profile(tags={s: b"curv\0\0\0\0\xff\xff\xff\xff"
                                                                    for s in (b"rTRC", b"gTRC", b"bTRC")}), None, None),
                ("100 bytes", good[:100], None, None),
                ("32 MiB of garbage", b"\xa5" * 4096, 32 * MiB, 32 * MiB)):
            got = outcome(conn, icc(conn, manager, data, length=length, size=size))
            check(got[:2] == ("failed", UNSUPPORTED_CAUSE), f"ICC {name}: failed unsupported ({got})")
        conn.roundtrip()
        check(kiln.alive(), "kiln runs on after every bad profile")


def output_and_feedback(kiln):
    with Connection(kiln.client_env) as conn:
        manager, _, _ = advertised(conn)
        wl_output = conn.bind("wl_output", 3)
        output = conn.create("wp_color_management_output_v1", manager, GET_OUTPUT, ("o", wl_output))
        first = conn.create("wp_image_description_v1", output, 1)
        ready = outcome(conn, first)
        check(ready[0] == "ready", f"the output's description is ready ({ready})")
        again = outcome(conn, conn.create("wp_image_description_v1", output, 1))
        check(again == ready, f"asked again while it holds, it is the same record ({again})")
        info, order = information(conn, first)
        srgb = tuple(round(v * 1e6) for v in (0.64, 0.33, 0.30, 0.60, 0.15, 0.06, 0.3127, 0.3290))
        check(info.get(2) == srgb and info.get(3) == (P_SRGB,) and info.get(5) == (TF_SRGB,),
              f"its information: sRGB primaries (named srgb) and the sRGB transfer function ({info})")
        check(info.get(6) == (2000, 80, 80) and info.get(7) == srgb and info.get(8) == (2000, 80),
              f"luminances 0.2 / 80 / 80 cd/m², target the same ({info})")
        check(order[-1] == 0 and 9 not in info and 10 not in info, f"then done, no max_cll/max_fall ({order})")

        compositor = conn.bind("wl_compositor", 4)
        surface = conn.create("wl_surface", compositor, 0)
        feedback = conn.create("wp_color_management_surface_feedback_v1", manager, GET_FEEDBACK, ("o", surface))
        preferred = conn.create("wp_image_description_v1", feedback, 1)
        got = outcome(conn, preferred)
        check(got == ready, f"the preferred description is the output's record ({got})")
        pinfo, _ = information(conn, preferred)
        check(pinfo == info, "and tells the same information")
        got = outcome(conn, conn.create("wp_image_description_v1", feedback, 2))
        check(got == ready, f"get_preferred_parametric: the same parametric record ({got})")
        conn.send(surface, 6)
        conn.roundtrip()
        check(not conn.take(feedback, 0), "no preferred_changed while nothing changes")


def output_gone():
    """Two headless outputs; one is unplugged (kiln_test_input_v1, as outputs.py does): the object for it is inert and
    its get_image_description fails with no_output, the other's is ready."""
    with Kiln("--outputs", "2", "--test-input", size=None) as kiln:
        with Connection(kiln.client_env) as conn:
            manager, _, _ = advertised(conn)
            registry = conn.create("wl_registry", 1, 1)
            conn.roundtrip()
            names = [e.args("usu")[0] for e in conn.take(registry, 0) if e.args("usu")[1] == "wl_output"]
            check(len(names) == 2, f"two wl_outputs ({names})")
            objects = []
            for name in names:
                wl_output = conn.new_id("wl_output")
                conn.send(registry, 0, u(name), ("s", "wl_output"), u(4), ("n", wl_output))
                objects.append(conn.create("wp_color_management_output_v1", manager, GET_OUTPUT, ("o", wl_output)))
            conn.roundtrip()
            before = [outcome(conn, conn.create("wp_image_description_v1", o, 1))[0] for o in objects]
            check(before == ["ready", "ready"], f"both outputs' descriptions are ready ({before})")
            test_input = conn.bind("kiln_test_input_v1", 4)
            conn.send(test_input, 18, ("s", "HEADLESS-2"))  # unplug_output
            conn.roundtrip()
            after = sorted(outcome(conn, conn.create("wp_image_description_v1", o, 1))[:2] for o in objects)
            check(after[0] == ("failed", NO_OUTPUT_CAUSE) and after[1][0] == "ready",
                  f"after HEADLESS-2 is unplugged its object's description fails no_output, the other's is ready "
                  f"({after})")
        check(kiln.alive(), "kiln runs on")


def surfaces(kiln):
    """Seven surfaces, each left in a state whose count --stats reports."""
    conn = Connection(kiln.client_env)
    manager, _, _ = advertised(conn)
    compositor = conn.bind("wl_compositor", 4)
    s = [conn.create("wl_surface", compositor, 0) for _ in range(7)]
    p3 = parametric(conn, manager, P3_PQ)
    hlg = parametric(conn, manager, BT2020_HLG)
    profile = icc(conn, manager, icc_profiles.profile())
    for d in (p3, hlg, profile):
        check(outcome(conn, d)[0] == "ready", "a description to set is ready")

    def colour(surface, description, intent):
        obj = conn.create("wp_color_management_surface_v1", manager, GET_SURFACE, ("o", surface))
        conn.send(obj, 1, ("o", description), u(intent))
        return obj

    def commit(surface):
        conn.send(surface, 6)

    colour(s[0], p3, PERCEPTUAL); commit(s[0])                       # described
    colour(s[1], hlg, RELATIVE); commit(s[1])                        # described, relative
    colour(s[2], profile, RELATIVE); commit(s[2])                    # described, relative, ICC
    colour(s[3], p3, RELATIVE)                                       # pending only
    obj = colour(s[4], p3, RELATIVE); commit(s[4])
    conn.send(obj, 2); commit(s[4])                                  # unset
    obj = colour(s[5], hlg, RELATIVE); commit(s[5])
    conn.send(obj, 0); commit(s[5])                                  # object destroyed: unset at the commit
    extra = parametric(conn, manager, BT2020_HLG)
    check(outcome(conn, extra)[0] == "ready", "one more description")
    colour(s[6], extra, PERCEPTUAL)
    conn.send(extra, 0); commit(s[6])                                # description destroyed: copy kept
    conn.roundtrip()
    check(True, "set, unset and destroy are taken without error")
    status, stats = kiln.stop()
    conn.close()
    check(status == 0, f"kiln exits cleanly ({status})")
    got = tuple(stat(stats, f"surfaces.colour_{k}") for k in ("described", "relative", "icc"))
    check(got == (4, 2, 1), f"committed: 4 described (P3/PQ, HLG, ICC, one whose description object is gone), 2 of "
          f"them relative, 1 ICC; pending, unset and destroyed-object surfaces are not ({got})")


def errors(kiln):
    bystander = Connection(kiln.client_env)
    manager, _, _ = advertised(bystander)
    compositor = bystander.bind("wl_compositor", 4)
    mine = bystander.create("wl_surface", compositor, 0)
    d = parametric(bystander, manager, P3_PQ)
    check(outcome(bystander, d)[0] == "ready", "the bystander's description is ready")
    obj = bystander.create("wp_color_management_surface_v1", manager, GET_SURFACE, ("o", mine))

    def case(what, expected, build):
        with Connection(kiln.client_env) as conn:
            m = conn.bind(MANAGER, 1)
            comp = conn.bind("wl_compositor", 4)
            surface = conn.create("wl_surface", comp, 0)
            target = build(conn, m, surface)
            got = expect_protocol_error(conn)
            check(f"@{target}: {expected} " in str(got), f"{what} ({got})")
        bystander.send(obj, 1, ("o", d), u(RELATIVE))
        bystander.send(mine, 6)
        bystander.roundtrip()
        check(kiln.alive(), "  kiln and the second client run on")

    def twice(conn, m, surface):
        conn.create("wp_color_management_surface_v1", m, GET_SURFACE, ("o", surface))
        conn.create("wp_color_management_surface_v1", m, GET_SURFACE, ("o", surface))
        return m
    case("a second surface object is surface_exists", 1, twice)
    case("create_windows_scrgb (not advertised) is unsupported_feature", 0,
         lambda conn, m, s: (conn.create("wp_image_description_v1", m, WINDOWS_SCRGB), m)[1])

    creator_errors = [
        ("create with nothing set is incomplete_set", 0, []),
        ("create without primaries is incomplete_set", 0, [(P_TF_NAMED, u(TF_SRGB))]),
        ("create without a transfer function is incomplete_set", 0, [(P_PRIMARIES_NAMED, u(P_SRGB))]),
        ("set_tf_named twice is already_set", 1, [(P_TF_NAMED, u(TF_SRGB)), (P_TF_NAMED, u(TF_PQ))]),
        ("set_primaries_named twice is already_set", 1, [(P_PRIMARIES_NAMED, u(P_SRGB))] * 2),
        ("set_primaries after set_primaries_named is already_set", 1,
         [(P_PRIMARIES_NAMED, u(P_SRGB)), (P_PRIMARIES, *xy(0.64, 0.33, 0.3, 0.6, 0.15, 0.06, 0.3127, 0.329))]),
        ("set_luminances twice is already_set", 1, [(P_LUMINANCES, u(2000), u(80), u(80))] * 2),
        ("set_mastering_display_primaries twice is already_set", 1,
         [(P_MASTERING_PRIMARIES, *xy(0.64, 0.33, 0.3, 0.6, 0.15, 0.06, 0.3127, 0.329))] * 2),
        ("set_mastering_luminance twice is already_set", 1, [(P_MASTERING_LUMINANCE, u(50), u(1000))] * 2),
        ("set_max_cll twice is already_set", 1, [(P_MAX_CLL, u(500))] * 2),
        ("set_max_fall twice is already_set", 1, [(P_MAX_FALL, u(300))] * 2),
        ("set_tf_power (not advertised) is unsupported_feature", 2, [(P_TF_POWER, u(22000))]),
        ("gamma 2.8 (not advertised) is invalid_tf", 3, [(P_TF_NAMED, u(TF_GAMMA28))]),
        ("transfer function 0 is invalid_tf", 3, [(P_TF_NAMED, u(0))]),
        ("PAL-M primaries (not advertised) are invalid_primaries_named", 4, [(P_PRIMARIES_NAMED, u(P_PAL_M))]),
        ("max_lum at min_lum is invalid_luminance", 5, [(P_LUMINANCES, u(800000), u(80), u(203))]),
        ("reference_lum below min_lum is invalid_luminance", 5, [(P_LUMINANCES, u(10000), u(80), u(0))]),
        ("mastering max at min is invalid_luminance", 5, [(P_MASTERING_LUMINANCE, u(10000000), u(1000))]),
    ]
    for what, code, requests in creator_errors:
        def build(conn, m, s, requests=requests, what=what):
            creator = params(conn, m, *requests)
            if "create" in what:
                create(conn, creator)
            return creator
        case(what, code, build)

    base = [(P_PRIMARIES_NAMED, u(P_BT2020)), (P_TF_NAMED, u(TF_PQ)), (P_MASTERING_LUMINANCE, u(50), u(1000))]
    for what, extra in (("max_cll above the mastering max", [(P_MAX_CLL, u(1001))]),
                        ("max_cll 0, not above the mastering min", [(P_MAX_CLL, u(0))]),
                        ("max_fall above the mastering max", [(P_MAX_FALL, u(2000))]),
                        ("max_fall above max_cll", [(P_MAX_CLL, u(400)), (P_MAX_FALL, u(500))])):
        case(f"create with {what} is invalid_luminance", 5,
             lambda conn, m, s, extra=extra: (lambda c: (create(conn, c), c)[1])(params(conn, m, *(base + extra))))
    case("max_cll above an sRGB description's default 80 cd/m² is invalid_luminance", 5,
         lambda conn, m, s: (lambda c: (create(conn, c), c)[1])(
             params(conn, m, (P_PRIMARIES_NAMED, u(P_SRGB)), (P_TF_NAMED, u(TF_SRGB)), (P_MAX_CLL, u(81)))))

    def icc_creator(conn, m):
        return conn.create("wp_image_description_creator_icc_v1", m, ICC_CREATOR)

    def icc_file(conn, creator, fd, offset, length):
        conn.send(creator, 1, u(offset), u(length), fds=[fd])
        os.close(fd)
    good = icc_profiles.profile()
    case("ICC create without a file is incomplete_set", 0,
         lambda conn, m, s: (lambda c: (create(conn, c), c)[1])(icc_creator(conn, m)))

    def set_twice(conn, m, s):
        c = icc_creator(conn, m)
        icc_file(conn, c, icc_fd(good), 0, len(good))
        icc_file(conn, c, icc_fd(good), 0, len(good))
        return c
    case("set_icc_file twice is already_set", 1, set_twice)

    def pipe_fd(conn, m, s):
        c = icc_creator(conn, m)
        r, w = os.pipe()
        os.write(w, good)
        os.close(w)
        icc_file(conn, c, r, 0, len(good))
        return c
    case("a pipe (not seekable) is bad_fd", 2, pipe_fd)

    def write_only(conn, m, s):
        c = icc_creator(conn, m)
        with tempfile.NamedTemporaryFile() as f:
            f.write(good)
            f.flush()
            icc_file(conn, c, os.open(f.name, os.O_WRONLY), 0, len(good))
        return c
    case("a write-only fd is bad_fd", 2, write_only)

    def zero(conn, m, s):
        c = icc_creator(conn, m)
        icc_file(conn, c, icc_fd(good), 0, 0)
        return c
    case("length 0 is bad_size", 3, zero)

    def too_big(conn, m, s):
        c = icc_creator(conn, m)
        icc_file(conn, c, icc_fd(good, 32 * MiB + 1), 0, 32 * MiB + 1)
        return c
    case("length 32 MiB + 1 is bad_size", 3, too_big)

    def past_end(conn, m, s):
        c = icc_creator(conn, m)
        icc_file(conn, c, icc_fd(good), 8, len(good))
        return c
    case("offset + length past the file's end is out_of_file", 4, past_end)

    def info_of_failed(conn, m, s):
        desc = icc(conn, m, b"\0" * 200)
        check(outcome(conn, desc)[0] == "failed", "  a failed description")
        conn.create("wp_image_description_info_v1", desc, 1)
        return desc
    case("get_information on a failed description is not_ready", 0, info_of_failed)

    def info_of_own(conn, m, s):
        desc = parametric(conn, m, BT2020_HLG)
        check(outcome(conn, desc)[0] == "ready", "  a ready client-made description")
        conn.create("wp_image_description_info_v1", desc, 1)
        return desc
    case("get_information on a client-made description is no_information", 1, info_of_own)

    def set_failed(conn, m, s):
        desc = icc(conn, m, b"\0" * 200)
        check(outcome(conn, desc)[0] == "failed", "  a failed description")
        o = conn.create("wp_color_management_surface_v1", m, GET_SURFACE, ("o", s))
        conn.send(o, 1, ("o", desc), u(PERCEPTUAL))
        return o
    case("set_image_description with a failed description is image_description", 1, set_failed)

    def saturation(conn, m, s):
        desc = parametric(conn, m, BT2020_HLG)
        o = conn.create("wp_color_management_surface_v1", m, GET_SURFACE, ("o", s))
        conn.send(o, 1, ("o", desc), u(SATURATION))
        return o
    case("the saturation intent (not advertised) is render_intent", 0, saturation)

    for opcode, name in ((1, "set_image_description"), (2, "unset_image_description")):
        def inert(conn, m, s, opcode=opcode):
            desc = parametric(conn, m, BT2020_HLG)
            o = conn.create("wp_color_management_surface_v1", m, GET_SURFACE, ("o", s))
            conn.send(s, 0)
            conn.send(o, opcode, *([("o", desc), u(PERCEPTUAL)] if opcode == 1 else []))
            return o
        case(f"{name} after the surface is destroyed is inert", 2, inert)

    def feedback_inert(conn, m, s):
        f = conn.create("wp_color_management_surface_feedback_v1", m, GET_FEEDBACK, ("o", s))
        conn.send(s, 0)
        conn.create("wp_image_description_v1", f, 1)
        return f
    case("get_preferred after the surface is destroyed is inert", 0, feedback_inert)
    bystander.close()


def main():
    with Kiln() as kiln:
        advertising(kiln)
        descriptions(kiln)
        output_and_feedback(kiln)
        errors(kiln)
        check(kiln.alive(), "kiln runs on")
    output_gone()
    with Kiln() as kiln:
        surfaces(kiln)


run_test(main)
