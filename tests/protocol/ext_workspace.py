#!/usr/bin/env python3
"""ext-workspace-v1 on headless kiln with two outputs and [workspaces] names=mail, web: a group per output with
create_workspace, output_enter for the client's wl_output of it (also one bound after the group came); each
workspace with an id, its name, its index as 1-D coordinates, active on the shown one, capabilities (activate,
deactivate, remove, assign), then done. Through requests (applied at commit, not before): create_workspace adds one to
the group, activate shows a workspace (a window sent to `web` by Super+Shift+2 is not on screen while `mail` is shown
and is after activate), remove drops an empty hidden workspace and is refused for a shown one or one with windows;
requests on a removed workspace are inert (assign, deactivate and urgent: ext_workspace_assign.py). Super+1 through
the virtual keyboard sends state and done. A bar that destroyed its handles, and one that left with requests not
committed, harm neither kiln nor other bars. An output unplugged (kiln_test_input_v1) leaves: workspace_leave, removed,
output_leave, the group's removed, done. stop is answered finished, and a request after it is invalid_object. A
sandboxed client (security-context) does not see the global."""
import os
import socket
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from kiln_harness import Kiln, check, need, run_test  # noqa: E402
from virtual_input import SHIFT, SUPER, KeyboardAndFocus as Keys  # noqa: E402
from wayland_wire import Connection, Toplevel, expect_protocol_error  # noqa: E402
from xdg_shell_client import box_on as box, wait_box  # noqa: E402
from ext_workspace_watcher import (  # noqa: E402
    ACTIVATE, ACTIVE, CAP_ACTIVATE, CAP_ASSIGN, CAP_DEACTIVATE, CAP_REMOVE, COMMIT, CREATE_WORKSPACE, FINISHED,
    G_REMOVED, INVALID_OBJECT, MANAGER, OUTPUT_LEAVE, REMOVE, STOP, W_DESTROY, W_REMOVED, WORKSPACE_LEAVE, Watcher,
    bind_output, outputs_by_name)

RED = 0xffc02020


def groups_and_workspaces(kiln):
    with Connection(kiln.client_env) as bar, Connection(kiln.client_env) as app:
        check(bar.globals.get(MANAGER, (0, 0))[1] == 1, f"kiln offers {MANAGER} version 1")
        registry, globals_ = outputs_by_name(bar)
        check(len(globals_) == 2, f"two wl_output globals ({len(globals_)})")
        (first_global, first_version), (second_global, second_version) = sorted(globals_.items())
        first_output, first_name = bind_output(bar, registry, first_global, first_version)
        manager = bar.bind(MANAGER, 1)
        w = Watcher(bar, manager)
        w.wait_done("the first batch after bind")
        groups = w.live_groups()
        check(len(groups) == 2, f"a group per output ({len(groups)})")
        check(all(g["capabilities"] == 1 for g in groups.values()), "each group can create_workspace")
        entered = [g for g, v in groups.items() if v["outputs"]]
        check(len(entered) == 1 and groups[entered[0]]["outputs"] == [first_output],
              f"output_enter with the client's wl_output ({first_name}) in its group only ({groups})")
        group_of = {first_name: entered[0]}
        for g, v in groups.items():
            check(w.names(g) == ["mail", "web"], f"group {g} lists mail, web in order ({w.names(g)})")
            mail, web = w.by_name(g, "mail"), w.by_name(g, "web")
            check(w.workspaces[mail]["coordinates"] == [0] and w.workspaces[web]["coordinates"] == [1],
                  "coordinates: the index in the group, 1-D")
            check(w.workspaces[mail]["state"] == ACTIVE and w.workspaces[web]["state"] == 0,
                  "mail (the first) is active, web is not")
            check(w.workspaces[mail]["capabilities"] == CAP_ACTIVATE | CAP_DEACTIVATE | CAP_REMOVE | CAP_ASSIGN,
                  "capabilities: activate, deactivate, remove and assign (ext_workspace_assign.py tests the last)")
        # Ids: stable names, unique.
        ids = [v["id"] for v in w.workspaces.values()]
        check(len(set(ids)) == 4 and f"{first_name}/mail" in ids, f"each workspace has a unique id ({ids})")

        second_output, second_name = bind_output(bar, registry, second_global, second_version)
        batch = w.wait_done("a wl_output bound after the groups came")
        other = next(g for g in groups if g != entered[0])
        check(w.groups[other]["outputs"] == [second_output],
              f"a wl_output bound later is output_enter'd in its group, with done ({batch})")
        group_of[second_name] = other

        # A window on the output under the pointer; which it is, the screen says.
        keys = Keys(app)
        red = Toplevel(app, "red")
        red.commit()
        red.map(200, 150, RED)
        keys.wait_enter(red)
        where = wait_box(kiln, RED, "shown", "a window on workspace mail")
        out = first_name if box(kiln, RED, first_name) else second_name
        group = group_of[out]
        mail, web = w.by_name(group, "mail"), w.by_name(group, "web")
        w.read()

        # create_workspace takes effect at commit, not before.
        bar.send(group, CREATE_WORKSPACE, ("s", "3"))
        w.quiet("create_workspace before commit")
        w.commit()
        w.wait_done("create_workspace committed")
        check(w.names(group) == ["mail", "web", "3"], f"create_workspace added '3' to the group ({w.names(group)})")
        three = w.by_name(group, "3")
        check(w.workspaces[three]["coordinates"] == [2] and w.workspaces[three]["state"] == 0,
              "at index 2, not active")

        # Super+Shift+2 sends the window to web: not on screen while mail is shown.
        keys.press(SUPER | SHIFT, "2")
        wait_box(kiln, RED, None, "Super+Shift+2: the window (now on web) is not on screen while mail is shown")
        bar.send(web, ACTIVATE)
        w.quiet("activate before commit")
        check(box(kiln, RED) is None, "activate without commit shows nothing")
        w.commit()
        batch = w.wait_done("activate web committed")
        check(w.workspaces[web]["state"] == ACTIVE and w.workspaces[mail]["state"] == 0,
              f"activate: web active, mail not, in one batch with done ({batch})")
        wait_box(kiln, RED, where, "activate through the protocol shows web's window where it was")

        # A key binding switching workspace is sent as well.
        keys.press(SUPER, "1")
        batch = w.wait_done("Super+1")
        check(w.workspaces[mail]["state"] == ACTIVE and w.workspaces[web]["state"] == 0,
              f"Super+1 through the virtual keyboard: state events and done ({batch})")
        wait_box(kiln, RED, None, "and the window is hidden again")

        # Remove: refused for the shown workspace and one with windows; an empty hidden one goes.
        bar.send(mail, REMOVE)
        bar.send(web, REMOVE)
        w.commit()
        w.quiet("remove of the shown workspace and of one with a window")
        bar.send(three, REMOVE)
        w.commit()
        batch = w.wait_done("remove of '3'")
        check(w.workspaces[three]["removed"] and three not in w.groups[group]["workspaces"] and
              batch.index(("group-event", group, WORKSPACE_LEAVE)) < batch.index(("workspace-event", three, W_REMOVED)),
              f"remove: workspace_leave, then removed, then done ({batch})")
        # Inert: requests on the removed workspace do nothing.
        bar.send(three, ACTIVATE)
        bar.send(three, REMOVE)
        w.commit()
        w.quiet("requests on a removed workspace are inert")
        bar.send(three, W_DESTROY)

        # A client that destroys its handles, and one that leaves with requests not committed, harm no one.
        with Connection(kiln.client_env) as rude, Connection(kiln.client_env) as gone_client:
            rude_w = Watcher(rude, rude.bind(MANAGER, 1))
            rude_w.wait_done("a second bar's first batch")
            for handle in list(rude_w.groups) + list(rude_w.workspaces):
                rude.send(handle, 1 if handle in rude_w.groups else W_DESTROY)
            leaver = Watcher(gone_client, gone_client.bind(MANAGER, 1))
            leaver.wait_done("a third bar's first batch")
            gone_client.send(next(iter(leaver.groups)), CREATE_WORKSPACE, ("s", "never"))
            gone_client.roundtrip()
            gone_client.close()
            bar.send(group, CREATE_WORKSPACE, ("s", "4"))
            w.commit()
            w.wait_done("create_workspace after a bar left")
            check(w.names(group) == ["mail", "web", "4"], f"kiln and the first bar carry on ({w.names(group)})")
            rude_w.wait_done("the bar with its handles destroyed")
            check(sum(1 for x in rude_w.workspaces.values() if x.get("name") == "4") == 1,
                  "a bar that destroyed its handles still hears of the new workspace, and no error")
        four = w.by_name(group, "4")
        bar.send(four, REMOVE)
        w.commit()
        w.wait_done("'4' removed")

        # An output unplugged takes its group away (kiln_test_input_v1: wlroots 0.15 cannot turn a headless output
        # off); the bar's wl_output of it stays, so output_leave can name it.
        gone_name = second_name if out == first_name else first_name
        gone, gone_output = group_of[gone_name], (second_output if gone_name == second_name else first_output)
        test_input = bar.bind("kiln_test_input_v1", 4)
        bar.send(test_input, 18, ("s", gone_name))  # unplug_output
        batch = w.wait_done(f"{gone_name} unplugged")
        while not w.groups[gone]["removed"]:
            batch += w.wait_done("the group's removal")
        leaves = [e for e in batch if e[:2] == ("group-event", gone) and e[2] == WORKSPACE_LEAVE]
        check(len(leaves) == 2 and w.groups[gone]["workspaces"] == [] and w.groups[gone]["outputs"] == [],
              f"{gone_name} unplugged: its two workspaces and its wl_output left the group ({batch})")
        check(batch.index(("group-event", gone, OUTPUT_LEAVE)) < batch.index(("group-event", gone, G_REMOVED)) and
              batch[-1] == ("done",), "output_leave, then the group's removed, then done")
        check(all(w.workspaces[x]["removed"] for x in w.workspaces if x not in w.groups[group]["workspaces"]),
              "its workspaces are removed")
        check(w.names(group) == ["mail", "web"] and gone_output not in w.groups[group]["outputs"],
              f"the other group is as it was ({w.names(group)})")

        # stop: finished; a request after it is wl_display.invalid_object.
        bar.send(manager, STOP)
        bar.dispatch_until(lambda e: e.obj == manager and e.opcode == FINISHED)
        check(True, "stop is answered finished")
        bar.send(manager, COMMIT)
        error = expect_protocol_error(bar)
        check(f": {INVALID_OBJECT} " in str(error), f"a request after stop is invalid_object ({error})")


def sandboxed(kiln, scratch):
    """A client accepted on a security context's socket does not see the global."""
    with Connection(kiln.client_env) as engine:
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        listener.bind(str(Path(scratch) / "sandbox"))
        listener.listen()
        close_read, close_write = os.pipe()
        security = engine.bind("wp_security_context_manager_v1", 1)
        context = engine.new_id("wp_security_context_v1")
        engine.send(security, 1, ("n", context), fds=[listener.fileno(), close_read])
        engine.send(context, 1, ("s", "org.example.sandbox"))
        engine.send(context, 2, ("s", "org.example.Bar"))
        engine.send(context, 4)
        engine.roundtrip()
        listener.close()
        os.close(close_read)
        with Connection({"XDG_RUNTIME_DIR": scratch, "WAYLAND_DISPLAY": "sandbox"}) as boxed:
            check("wl_compositor" in boxed.globals and MANAGER not in boxed.globals,
                  "a sandboxed client (security-context) does not see ext_workspace_manager_v1")
        os.close(close_write)


def main():
    need("grim")
    with tempfile.TemporaryDirectory(prefix="kiln-ext-workspace-") as scratch:
        config = Path(scratch) / "kiln.ini"
        config.write_text("[output HEADLESS-1]\nposition=0,0\n[output HEADLESS-2]\nposition=640,0\n"
                          "[workspaces]\nnames=mail, web\n")
        with Kiln("--outputs", "2", "--test-input", "--config", str(config)) as kiln:
            groups_and_workspaces(kiln)
            sandboxed(kiln, scratch)


run_test(main)
