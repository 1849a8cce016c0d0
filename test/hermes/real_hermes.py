"""Loads the generated plugin with the REAL Hermes Agent modules (v0.18.0 or v0.21, booted by
hermes_boot.py), kept outside the repo.

    python3 real_hermes.py <hermes_src> <plugin_dir> <config.json>

config: {"url", "token", "session_id", "skill_raises": bool, "calls"?: [[tool, args, call_id], ...],
"consent"?: [answer per call, e.g. "o" or "d"]}
(without "calls": the blocked/allowed/get calls below). Installs the plugin and a second
plugin that blocks one call in pre_tool_call into a scratch HERMES_HOME, runs Hermes' own
discover_plugins() and model_tools.handle_function_call(), and prints one JSON report: the tools
Hermes registered, whether the plugin loaded, and per call the handler's output and the request
envelope the plugin sent. Jest makes the assertions (test/hermes/real-hermes.test.ts).

With "consent", each call runs with sys.stdin holding that answer, as a person at Hermes' CLI
would type it into its approval prompt (tools/approval.py prompt_dangerous_approval, reached through
request_elicitation_consent), and what Hermes showed on stdout is reported as the call's "shown".
With "cli_callback" (answers, e.g. ["once"]), the calling thread registers an approval callback the
way Hermes' interactive CLI does (tools.terminal_tool.set_approval_callback, per thread; a stand-in
with Hermes' own shape where the module is not in the source), which answers as scripted and
records what it was shown; each call's "panel" lists those. With "prompt_toolkit_active", the calls
run while a prompt_toolkit Application is current, as inside the interactive `hermes` CLI.

Newer-Hermes settings (v0.21): "interactive" marks the session as the interactive CLI does
(set_hermes_interactive_context; implied by "prompt_toolkit_active" and "cli_callback"), "yolo"
starts Hermes as --yolo does (HERMES_YOLO_MODE), "approvals_mode" writes approvals.mode,
"hook_timeout" plugins.hook_callback_timeout, the gate's permanent allowlist ("always") is
reported as "allowlist", and "modify" installs a third plugin whose pre_tool_call rewrites
one tool's arguments ({"tool", "args"}) with 0.21's modify action; "transport" (answers, e.g.
["once"]) installs an operator's plugin that registers approval transport "ops" and selects it
(security.approval.transport), reported as "transport" (what it was shown); "gate_bypassed"
replaces the gate by one that approves without asking anyone. Each call reports its
"seconds" (the whole handle_function_call) and what the gate's CLI prompt hooks saw ("gate").

Where a tree lacks a module the path imports, hermes_boot.py names the stand-in; every decision is
still Hermes' own code.
"""

import io
import json
import logging
import os
import shutil
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hermes_boot  # noqa: E402

BLOCKER = '''
def _block(tool_name=None, args=None, **_):
    if tool_name == "mnote_page_update_title" and (args or {}).get("title") == "Blocked":
        return {"action": "block", "message": "blocked by the test's policy plugin"}
    return None


def register(ctx):
    ctx.register_hook("pre_tool_call", _block)
'''


MODIFIER = '''
import json, os
_RULE = json.loads(os.environ["MNOTE_TEST_MODIFY"])


def _modify(tool_name=None, args=None, **_):
    if tool_name == _RULE["tool"]:
        return {"action": "modify", "args": _RULE["args"]}
    return None


def register(ctx):
    ctx.register_hook("pre_tool_call", _modify)
'''


OPERATOR_TRANSPORT = '''
import json, os
SEEN = []
_ANSWERS = json.loads(os.environ["MNOTE_TEST_TRANSPORT_ANSWERS"])


def _present(request):
    SEEN.append({"command": request.command, "description": request.description, "surface": request.surface,
                 "allow_session": request.allow_session, "allow_permanent": request.allow_permanent})
    return _ANSWERS.pop(0) if _ANSWERS else "deny"


def register(ctx):
    ctx.register_approval_transport("ops", _present)
'''


def _write_home(home, config):
    plugins = ["mnote", "blocker"]
    if "transport" in config:
        # an operator's approval channel: a plugin registering transport "ops", selected in config.yaml
        plugins.append("ops_approvals")
        os.makedirs(os.path.join(home, "plugins", "ops_approvals"))
        with open(os.path.join(home, "plugins", "ops_approvals", "plugin.yaml"), "w", encoding="utf-8") as f:
            f.write("name: ops_approvals\nversion: 0.0.1\ndescription: the operator's approval channel\n")
        with open(os.path.join(home, "plugins", "ops_approvals", "__init__.py"), "w", encoding="utf-8") as f:
            f.write(OPERATOR_TRANSPORT)
        os.environ["MNOTE_TEST_TRANSPORT_ANSWERS"] = json.dumps(config["transport"])
    if config.get("modify"):
        plugins.append("modifier")
        os.makedirs(os.path.join(home, "plugins", "modifier"))
        with open(os.path.join(home, "plugins", "modifier", "plugin.yaml"), "w", encoding="utf-8") as f:
            f.write("name: modifier\nversion: 0.0.1\ndescription: rewrites one tool's arguments\n")
        with open(os.path.join(home, "plugins", "modifier", "__init__.py"), "w", encoding="utf-8") as f:
            f.write(MODIFIER)
        os.environ["MNOTE_TEST_MODIFY"] = json.dumps(config["modify"])
    text = "plugins:\n  enabled: [%s]\n" % ", ".join(plugins)
    if config.get("hook_timeout"):
        text += "  hook_callback_timeout: %s\n" % config["hook_timeout"]
    if config.get("approvals_mode"):
        text += 'approvals:\n  mode: "%s"\n' % config["approvals_mode"]
    if "transport" in config:
        text += "security:\n  approval:\n    transport: ops\n"
    with open(os.path.join(home, "config.yaml"), "w", encoding="utf-8") as f:
        f.write(text)
    if config.get("yolo"):
        os.environ["HERMES_YOLO_MODE"] = "1"


def _answer_on_page(base, last_output, page_answer):
    """{"page_answer": {"cookie", "answer"}} before a call: the person answers, on the approval page,
    the question the previous call's answer named (its CSRF token read from the page, as a browser)."""
    import re
    import urllib.request

    record = re.search(r"/approvals/([0-9a-f]{32})", json.loads(last_output)["error"]["message"]).group(1)
    headers = {"Cookie": page_answer["cookie"]}
    with urllib.request.urlopen(urllib.request.Request(base + "/approvals/" + record, headers=headers)) as page:
        csrf = re.search(r'data-csrf="([^"]*)"', page.read().decode("utf-8")).group(1)
    body = json.dumps({"answer": page_answer["answer"]}).encode("utf-8")
    answer = urllib.request.Request(base + "/v1/approvals/" + record, data=body, method="POST", headers=dict(headers, **{"X-Mnote-Csrf": csrf, "Content-Type": "application/json"}))
    with urllib.request.urlopen(answer) as response:
        assert json.loads(response.read().decode("utf-8"))["answered"] is True


def main():
    hermes_src, plugin_dir, config_file = sys.argv[1], sys.argv[2], sys.argv[3]
    with open(config_file, encoding="utf-8") as f:
        config = json.load(f)
    home = tempfile.mkdtemp(prefix="hermes-home-")
    bundled = tempfile.mkdtemp(prefix="hermes-bundled-")
    shutil.copytree(plugin_dir, os.path.join(home, "plugins", "mnote"))
    os.makedirs(os.path.join(home, "plugins", "blocker"))
    with open(os.path.join(home, "plugins", "blocker", "plugin.yaml"), "w", encoding="utf-8") as f:
        f.write("name: blocker\nversion: 0.0.1\ndescription: blocks one call\n")
    with open(os.path.join(home, "plugins", "blocker", "__init__.py"), "w", encoding="utf-8") as f:
        f.write(BLOCKER)
    _write_home(home, config)
    # every warning Hermes logs while it discovers and loads the plugins (the report's "warnings")
    warnings = []

    class _Collect(logging.Handler):
        def emit(self, record):
            if record.levelno >= logging.WARNING:
                warnings.append({"logger": record.name, "message": record.getMessage()})

    logging.getLogger().addHandler(_Collect())
    os.environ.update({"HERMES_HOME": home, "HERMES_BUNDLED_PLUGINS": bundled, "MNOTE_TOOLS_URL": config["url"], "MNOTE_TOOLS_TOKEN": config["token"]})
    version, hermes_plugins = hermes_boot.boot(hermes_src, consent="consent" in config or "cli_callback" in config, skill_raises=config.get("skill_raises"))
    if version == "0.21" and (config.get("interactive") or config.get("prompt_toolkit_active") or "cli_callback" in config):
        from tools.approval_context import set_hermes_interactive_context

        set_hermes_interactive_context(True)
    if version == "0.21" and config.get("gate_bypassed"):
        # a Hermes that runs the tool around its gate (approved, nobody asked): the plugin must not write
        import tools.approval

        tools.approval.request_tool_approval = lambda *a, **k: {"approved": True, "message": None}
    gate = []
    if version == "0.21":
        # what the gate's CLI prompt reported (its post_approval_response hook), as an observer plugin sees it
        hermes_plugins.get_plugin_manager()._hooks.setdefault("post_approval_response", []).append(lambda **kw: gate.append({k: kw.get(k) for k in ("pattern_key", "choice", "description")}))
    panel = []
    if "cli_callback" in config:
        panel_answers = list(config["cli_callback"])
        terminal = hermes_boot.terminal_tool()

        def cli_panel(command, description, **kwargs):
            panel.append({"command": command, "description": description, "kwargs": kwargs})
            answer = panel_answers.pop(0) if panel_answers else "deny"
            if answer == "hang":  # a person who never answers (the test interrupts the turn)
                time.sleep(120)
                return "deny"
            return answer

        terminal.set_approval_callback(cli_panel)
    from tools.registry import registry
    import model_tools

    loaded = hermes_boot.loaded_plugins(hermes_plugins)
    module = sys.modules.get("hermes_plugins.mnote")
    sent = []
    if module is not None:
        original = module._send

        def recording(transport, request):
            sent.append(request)
            return original(transport, request)

        module._send = recording

    calls = []
    answers = list(config.get("consent") or [])
    for name, args, call_id, *options in config.get("calls") or [
        ("mnote_page_update_title", {"title": "Blocked"}, "call_blocked"),
        ("mnote_page_update_title", {"title": "Allowed"}, "call_allowed"),
        ("mnote_page_get", {"includeBlocks": False}, "call_get"),
    ]:
        # per call: {"skip_hook": true} (the caller fired pre_tool_call itself: Hermes skips it, and the
        # handler has only the running call id), {"interrupt_after": s} (/stop on this thread after s)
        options = options[0] if options else {}
        if options.get("page_answer"):
            _answer_on_page(config["url"], calls[-1]["output"], options["page_answer"])
        if options.get("interrupt_after"):
            from tools import interrupt

            agent_thread = threading.get_ident()
            threading.Timer(options["interrupt_after"], lambda: interrupt.set_interrupt(True, agent_thread)).start()
        before = len(sent)
        stdin, stdout = sys.stdin, sys.stdout
        shown = io.StringIO()
        if "consent" in config:
            sys.stdin = io.StringIO((answers.pop(0) if answers else "") + "\n")
            sys.stdout = shown
        shown_panel, shown_gate = len(panel), len(gate)
        app_context = None
        if config.get("prompt_toolkit_active"):
            from prompt_toolkit.application import Application
            from prompt_toolkit.application.current import set_app

            app_context = set_app(Application())
            app_context.__enter__()
        started = time.monotonic()
        try:
            extra = {"skip_pre_tool_call_hook": True} if options.get("skip_hook") else {}
            output = model_tools.handle_function_call(name, dict(args) if isinstance(args, dict) else args, task_id="task_1", tool_call_id=call_id, session_id=config["session_id"], **extra)
        finally:
            sys.stdin, sys.stdout = stdin, stdout
            if app_context is not None:
                app_context.__exit__(None, None, None)
            if options.get("interrupt_after"):
                from tools import interrupt

                interrupt.set_interrupt(False, threading.get_ident())
        calls.append({"tool": name, "tool_call_id": call_id, "output": output, "request": sent[-1] if len(sent) > before else None, "requests": sent[before:], "shown": shown.getvalue(), "panel": panel[shown_panel:], "gate": gate[shown_gate:], "seconds": time.monotonic() - started})

    names = sorted(n for n in registry.get_all_tool_names() if n.startswith("mnote_")) if hasattr(registry, "get_all_tool_names") else sorted(n for n in getattr(registry, "_tools", {}) if n.startswith("mnote_"))
    # the permanent allowlist the gate consults ("always"): v0.21 keeps it in memory and saves it to
    # config.yaml, which needs ruamel.yaml (not installed here: the save is logged as failed)
    approval = sys.modules.get("tools.approval")
    allowlist = sorted(k for k in approval._permanent_set() if k.startswith("plugin_rule:")) if version == "0.21" and approval else []
    loader = {}
    if version == "0.21":
        # how 0.21 finds the plugin: plugins_discovery.scan_directory over the user's plugins folder
        from pathlib import Path

        from hermes_cli.plugins_discovery import scan_directory
        from hermes_cli.plugins_manifest import SUPPORTED_MANIFEST_VERSION

        found = {m.name: m for m in scan_directory(Path(home) / "plugins", "user")}
        mnote = found.get("mnote")
        loader = {
            "scanned": sorted(found),
            "manifest_version": getattr(mnote, "manifest_version", None),
            "supported_manifest_version": SUPPORTED_MANIFEST_VERSION,
            "provides_tools": sorted(getattr(mnote, "provides_tools", []) or []),
            "provides_hooks": sorted(getattr(mnote, "provides_hooks", []) or []),
            "resolve_pre_tool_block": callable(getattr(hermes_plugins, "resolve_pre_tool_block", None)),
        }
    operator = sys.modules.get("hermes_plugins.ops_approvals")
    transport_seen = list(getattr(operator, "SEEN", []))
    print(json.dumps({"version": version, "tools": names, "plugins": loaded, "calls": calls, "allowlist": allowlist, "warnings": warnings, "loader": loader, "transport": transport_seen}, default=str))


if __name__ == "__main__":
    main()
