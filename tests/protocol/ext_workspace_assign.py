#!/usr/bin/env python3
"""ext-workspace-v1's assign and deactivate, the urgent state and `kiln msg move-workspace` on headless kiln with two
outputs side by side, each with a workspace `mail`. assign (at commit) moves workspace `web` with its window to the
other output's group: one handle throughout, workspace_leave on the old group and workspace_enter on the new, web
still active there, the old output back on `mail`, done; the window's pixels leave HEADLESS-1 and show on HEADLESS-2
at the same place, and keyboard focus goes to it from the window of the workspace it hid. assign to its own group, to a group holding that name, or with a group
from another manager of the client changes nothing; a null group, and a wl_output in its place, are
wl_display.invalid_method (libwayland's "invalid arguments": the XML has no errors). deactivate of the shown workspace shows the one its output
showed before (sway's back_and_forth, twice goes back); of a hidden one, or with nothing shown before, it changes
nothing. An xdg-activation request without a seat for a window on a hidden workspace marks the workspace urgent (not
shown, no switch); showing it clears urgent; for a shown window it does nothing. `kiln msg move-workspace` moves it
back (screenshots) and refuses what it cannot do with a message. kiln.ini's [output NAME] workspaces= starts an
output with its own named workspaces, kept off the others."""
import json
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from kiln_harness import Kiln, check, kiln_binary, need, run_test  # noqa: E402
from virtual_input import KeyboardAndFocus as Keys  # noqa: E402
from wayland_wire import Connection, Toplevel, expect_protocol_error  # noqa: E402
from xdg_shell_client import box_on as box, wait_box  # noqa: E402
from ext_workspace_watcher import (  # noqa: E402
    ACTIVATE, ACTIVE, ASSIGN, CREATE_WORKSPACE, DEACTIVATE, MANAGER, REMOVE, W_REMOVED,
    WORKSPACE_ENTER, WORKSPACE_LEAVE, Watcher, bind_output, outputs_by_name)

RED = 0xffc02020
BLUE = 0xff2040c0
URGENT = 2
INVALID_METHOD = 1  # wl_display.error


def msg(kiln, *args):
    """`kiln msg ARGS`: (exit status, parsed reply or None, stderr)."""
    result = subprocess.run([kiln_binary(), "msg", *args], env=kiln.client_env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, timeout=20)
    reply = json.loads(result.stdout) if result.stdout.strip() else None
    return result.returncode, reply, result.stderr


def assign_deactivate_urgent(kiln):
    with Connection(kiln.client_env) as bar, Connection(kiln.client_env) as app:
        registry, globals_ = outputs_by_name(bar)
        bound = dict(bind_output(bar, registry, name, version) for name, version in sorted(globals_.items()))
        w = Watcher(bar, bar.bind(MANAGER, 1))
        w.wait_done("the first batch")
        group_of = {bound[v["outputs"][0]]: g for g, v in w.live_groups().items()}
        check(sorted(group_of) == ["HEADLESS-1", "HEADLESS-2"], f"a group per output ({group_of})")
        one, two = group_of["HEADLESS-1"], group_of["HEADLESS-2"]
        mail, mail2 = w.by_name(one, "mail"), w.by_name(two, "mail")

        # A window on HEADLESS-1's web, shown.
        keys = Keys(app)
        red = Toplevel(app, "red")
        red.commit()
        red.map(200, 150, RED)
        keys.wait_enter(red)
        status, reply, err = msg(kiln, "windows")
        window = next(x for x in reply["windows"] if x["title"] == "red")
        status, reply, err = msg(kiln, "move", str(window["id"]), "web", "HEADLESS-1")
        check(status == 0, f"kiln msg move puts the window on HEADLESS-1's web ({err.strip()})")
        while not any(w.workspaces[x].get("name") == "web" for x in w.groups[one]["workspaces"]):
            w.wait_done("web made on HEADLESS-1")
        web = w.by_name(one, "web")
        bar.send(web, ACTIVATE)
        w.commit()
        w.wait_done("web shown on HEADLESS-1")
        while w.workspaces[web]["state"] != ACTIVE:
            w.wait_done("web shown on HEADLESS-1")
        where = wait_box(kiln, RED, "shown", "the window on HEADLESS-1's web", output="HEADLESS-1")
        check(box(kiln, RED, "HEADLESS-2") is None, "and not on HEADLESS-2")
        # A second window, on HEADLESS-2's mail, has keyboard focus.
        blue = Toplevel(app, "blue")
        blue.commit()
        blue.map(120, 90, BLUE)
        status, reply, err = msg(kiln, "windows")
        blue_id = next(x for x in reply["windows"] if x["title"] == "blue")["id"]
        for args in (["move", str(blue_id), "mail", "HEADLESS-2"], ["focus", str(blue_id)]):
            status, reply, err = msg(kiln, *args)
            check(status == 0, f"kiln msg {' '.join(args)} ({err.strip()})")
        wait_box(kiln, BLUE, "shown", "the second window on HEADLESS-2's mail", output="HEADLESS-2")
        w.read()

        # assign: at commit, not before.
        bar.send(web, ASSIGN, ("o", two))
        w.quiet("assign before commit")
        w.commit()
        batch = w.wait_done("web assigned to HEADLESS-2's group")
        check(("group-event", one, WORKSPACE_LEAVE) in batch and ("group-event", two, WORKSPACE_ENTER) in batch and
              batch.index(("group-event", one, WORKSPACE_LEAVE)) < batch.index(("group-event", two, WORKSPACE_ENTER))
              and ("workspace-event", web, W_REMOVED) not in batch and batch[-1] == ("done",),
              f"assign: workspace_leave on the old group, workspace_enter on the new, same handle, done ({batch})")
        check(web in w.groups[two]["workspaces"] and web not in w.groups[one]["workspaces"],
              "web is in HEADLESS-2's group now")
        check(w.workspaces[web]["state"] == ACTIVE and w.workspaces[mail2]["state"] == 0 and
              w.workspaces[mail]["state"] == ACTIVE,
              "web, shown before, is shown on HEADLESS-2; HEADLESS-1 shows mail again")
        wait_box(kiln, RED, where, "the window's pixels are on HEADLESS-2 at the same place", output="HEADLESS-2")
        check(box(kiln, RED, "HEADLESS-1") is None, "and gone from HEADLESS-1")
        wait_box(kiln, BLUE, None, "the second window, on HEADLESS-2's mail, is hidden")
        status, reply, err = msg(kiln, "windows")
        moved = next(x for x in reply["windows"] if x["title"] == "red")
        hidden = next(x for x in reply["windows"] if x["title"] == "blue")
        check(moved["output"] == "HEADLESS-2" and moved["workspace"] == "web" and moved["focused"] and
              not hidden["focused"], f"kiln msg: the window is on HEADLESS-2's web and focus went to it from the "
              f"hidden one, as for a switch ({moved}, {hidden})")

        # assign that cannot be: to its own group, to a group with that name, with another manager's group.
        bar.send(web, ASSIGN, ("o", two))
        bar.send(mail, ASSIGN, ("o", two))  # HEADLESS-2 has a mail
        w.commit()
        w.quiet("assign to its own group, and to a group holding the name")
        other = Watcher(bar, bar.bind(MANAGER, 1))
        other.wait_done("a second manager of the same client")
        other_one = next(g for g, v in other.live_groups().items() if bound[v["outputs"][0]] == "HEADLESS-1")
        bar.send(web, ASSIGN, ("o", other_one))
        w.commit()
        w.quiet("assign with a group of another manager")
        check(web in w.groups[two]["workspaces"], "web stayed on HEADLESS-2")

        # deactivate: back to what the output showed before (mail2), again: back to web; a hidden one: nothing.
        bar.send(web, DEACTIVATE)
        w.quiet("deactivate before commit")
        w.commit()
        batch = w.wait_done("deactivate web")
        check(w.workspaces[web]["state"] == 0 and w.workspaces[mail2]["state"] == ACTIVE,
              f"deactivate of the shown web shows mail, shown on HEADLESS-2 before it ({batch})")
        wait_box(kiln, RED, None, "web's window is hidden", output="HEADLESS-2")
        bar.send(web, DEACTIVATE)
        w.commit()
        w.quiet("deactivate of a hidden workspace")
        bar.send(mail2, DEACTIVATE)
        w.commit()
        w.wait_done("deactivate mail: back and forth")
        check(w.workspaces[web]["state"] == ACTIVE and w.workspaces[mail2]["state"] == 0,
              "deactivate of mail goes back to web")
        wait_box(kiln, RED, where, "web's window is shown again", output="HEADLESS-2")
        bar.send(mail, DEACTIVATE)
        w.commit()
        w.quiet("deactivate where the output showed nothing before")

        # urgent: web hidden, then the window asks for activation with a token from no input event.
        bar.send(mail2, ACTIVATE)
        w.commit()
        w.wait_done("mail shown on HEADLESS-2")
        wait_box(kiln, RED, None, "web hidden", output="HEADLESS-2")
        activation = app.bind("xdg_activation_v1", 1)

        def ask_for_activation():
            token = app.create("xdg_activation_token_v1", activation, 1)
            app.send(token, 2, ("o", red.surface))  # set_surface
            app.send(token, 3)  # commit
            text = app.dispatch_until(lambda e: e.obj == token and e.opcode == 0).args("s")[0]
            app.send(activation, 2, ("s", text), ("o", red.surface))  # activate
            app.roundtrip()

        ask_for_activation()
        batch = w.wait_done("a hidden workspace's window asked for activation")
        check(w.workspaces[web]["state"] == URGENT and w.workspaces[mail2]["state"] == ACTIVE,
              f"web is urgent (not active: no switch) ({batch})")
        check(box(kiln, RED) is None, "the window is still not on screen")
        ask_for_activation()
        w.quiet("a second request: urgent already")
        bar.send(web, ACTIVATE)
        w.commit()
        w.wait_done("web shown")
        check(w.workspaces[web]["state"] == ACTIVE, "shown, web is active and no longer urgent")
        ask_for_activation()
        w.quiet("a shown window asking for activation marks nothing")

        # kiln msg move-workspace takes web back to HEADLESS-1; what it cannot do is refused with a message.
        for args, wanted in ((["move-workspace", "web", "NOPE-1"], "no output named"),
                             (["move-workspace", "nope", "HEADLESS-1", "HEADLESS-2"], "no workspace"),
                             (["move-workspace", "web", "HEADLESS-2", "HEADLESS-2"], "already"),
                             (["move-workspace", "mail", "HEADLESS-1", "HEADLESS-2"], "already")):
            status, reply, err = msg(kiln, *args)
            check(status != 0 and wanted in err, f"kiln msg {' '.join(args)}: refused ({err.strip()})")
        w.quiet("refused kiln msg move-workspace")
        status, reply, err = msg(kiln, "move-workspace", "web", "HEADLESS-1", "HEADLESS-2")
        check(status == 0 and reply == {"ok": True}, f"kiln msg move-workspace web HEADLESS-1 ({err.strip()})")
        batch = w.wait_done("kiln msg move-workspace")
        check(web in w.groups[one]["workspaces"] and w.workspaces[web]["state"] == ACTIVE,
              f"the bar sees web back in HEADLESS-1's group, shown ({batch})")
        wait_box(kiln, RED, where, "the window's pixels are back on HEADLESS-1", output="HEADLESS-1")

        # A hidden workspace moves hidden: create '5' on HEADLESS-1, assign it; it stays not active.
        bar.send(one, CREATE_WORKSPACE, ("s", "5"))
        w.commit()
        w.wait_done("'5' created")
        five = w.by_name(one, "5")
        bar.send(five, ASSIGN, ("o", two))
        w.commit()
        w.wait_done("'5' assigned")
        check(five in w.groups[two]["workspaces"] and w.workspaces[five]["state"] == 0 and
              w.workspaces[web]["state"] == ACTIVE, "a hidden workspace moves hidden; web stays shown")
        bar.send(five, REMOVE)
        w.commit()
        w.wait_done("'5' removed")


def protocol_errors(kiln):
    """assign's object argument, checked by libwayland: null and a wl_output are the client's protocol error (libwayland
    1.21 answers a wrong interface, too, with invalid_method)."""
    for what, argument, code in (("a null group", ("o", 0), INVALID_METHOD),
                                 ("a wl_output as the group", None, INVALID_METHOD)):
        with Connection(kiln.client_env) as bad:
            output = bad.bind("wl_output", 1)
            w = Watcher(bad, bad.bind(MANAGER, 1))
            w.wait_done("a bar's first batch")
            workspace = next(iter(w.workspaces))
            bad.send(workspace, ASSIGN, argument or ("o", output))
            error = expect_protocol_error(bad)
            check(f": {code} " in str(error) and "assign" in str(error),
                  f"assign with {what}: wl_display error {code} on assign ({error})")
    with Connection(kiln.client_env) as fine:
        check(MANAGER in fine.globals, "kiln carries on for other clients")


def configured_outputs(scratch):
    """kiln.ini's [output NAME] workspaces=: HEADLESS-2 starts with chat (shown) and 7, HEADLESS-1 with [workspaces]
    names less those HEADLESS-2 and an output not plugged in (NOPE-1) claim."""
    config = Path(scratch) / "assigned.ini"
    config.write_text("[output HEADLESS-1]\nposition=0,0\n[output HEADLESS-2]\nposition=640,0\nworkspaces=chat, 7\n"
                      "[output NOPE-1]\nworkspaces=away\n[workspaces]\nnames=mail, web, chat, away\n")
    with Kiln("--outputs", "2", "--config", str(config)) as kiln, Connection(kiln.client_env) as bar:
        registry, globals_ = outputs_by_name(bar)
        bound = dict(bind_output(bar, registry, name, version) for name, version in sorted(globals_.items()))
        w = Watcher(bar, bar.bind(MANAGER, 1))
        w.wait_done("the first batch")
        group_of = {bound[v["outputs"][0]]: g for g, v in w.live_groups().items()}
        one, two = group_of["HEADLESS-1"], group_of["HEADLESS-2"]
        check(w.names(one) == ["mail", "web"], f"HEADLESS-1 starts with mail, web ({w.names(one)})")
        check(w.names(two) == ["chat", "7"], f"HEADLESS-2 starts with its own chat, 7 ({w.names(two)})")
        check(w.workspaces[w.by_name(two, "chat")]["state"] == ACTIVE and
              w.workspaces[w.by_name(one, "mail")]["state"] == ACTIVE, "the first of each list is shown")
        status, reply, err = msg(kiln, "workspaces")
        named = {(x["output"], x["name"]): x["named"] for x in reply["workspaces"]}
        check(named == {("HEADLESS-1", "mail"): True, ("HEADLESS-1", "web"): True, ("HEADLESS-2", "chat"): True,
                        ("HEADLESS-2", "7"): True}, f"kiln msg: all named, kept while empty ({named})")


def main():
    need("grim")
    with tempfile.TemporaryDirectory(prefix="kiln-ext-workspace-assign-") as scratch:
        config = Path(scratch) / "kiln.ini"
        config.write_text("[output HEADLESS-1]\nposition=0,0\n[output HEADLESS-2]\nposition=640,0\n"
                          "[workspaces]\nnames=mail\n")
        with Kiln("--outputs", "2", "--config", str(config)) as kiln:
            assign_deactivate_urgent(kiln)
            protocol_errors(kiln)
        configured_outputs(scratch)


run_test(main)
