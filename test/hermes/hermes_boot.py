"""Boots a REAL Hermes Agent source tree (kept outside the repo) for the real-Hermes drivers
(real_hermes.py, test/reliability/hermes_faults.py), on either tree the suites run on:

- v0.18.0 (shared/hermes-agent-v0.18.0): the 24 modules that load and dispatch a plugin.
  gateway.session_context, agent.redact and agent.i18n (imported by tools/approval.py on the
  consent path) are not in it: STAND_INS below supply the behaviour Hermes documents for a CLI
  session, only where the real module cannot be imported.
- v0.21 (shared/hermes-agent-v0.21, base v0.21.4): the plugin system split into
  plugins_discovery / loader / manifest / state / dispatch, the approve gate, ctx.state. The
  modules that tree could not hold are supplied by the scratch stand-ins beside it
  (shared/hermes-agent-v0.21-standins/shim_boot.py, named by MNOTE_HERMES_STANDINS; see its
  SOURCE.md): the callback registry of tools/terminal_tool.py, agent.i18n (prompt keys instead of
  words), agent.redact (identity), the connector and observability hooks, config_providers; and,
from here, hermes_cli.approval_transport (an operator's approval transport; the tree lacks it). Every
  decision the tests assert (discovery, hooks, the approve gate, yolo, the allowlist, ctx.state) is
  the tree's own code.

    version, plugins = boot(hermes_src, home)   # after HERMES_HOME and the plugin folders are in place
"""

import importlib
import os
import sys
import types


def is_v021(hermes_src):
    """The 0.21 layout: the plugin system split into modules (plugins_discovery.py among them)."""
    return os.path.exists(os.path.join(hermes_src, "hermes_cli", "plugins_discovery.py"))


def _missing(name):
    try:
        importlib.import_module(name)
        return False
    except ImportError:
        return True


def _v018_stand_ins():
    """gateway.session_context, agent.redact and agent.i18n, only where the real ones are missing."""
    if _missing("gateway.session_context"):
        gateway = types.ModuleType("gateway")
        context = types.ModuleType("gateway.session_context")
        context.get_session_env = lambda name, default="": os.environ.get(name, default)  # Hermes' CLI fallback
        gateway.session_context = context
        sys.modules["gateway"] = gateway
        sys.modules["gateway.session_context"] = context
    if _missing("agent.redact"):
        redact = types.ModuleType("agent.redact")
        redact.redact_sensitive_text = lambda text, **_: text
        sys.modules["agent.redact"] = redact
    if _missing("agent.i18n"):
        i18n = types.ModuleType("agent.i18n")
        i18n.t = lambda key, **kw: key + (" " + " ".join("%s=%s" % kv for kv in sorted(kw.items())) if kw else "")
        sys.modules["agent.i18n"] = i18n


def _approval_transport_stand_in():
    """hermes_cli.approval_transport is not in the v0.21 tree (its SOURCE.md): a stand-in with the
    shapes its call sites use (hermes_cli/plugins.py register_approval_transport,
    tools/approval_prompt.py _present_with_selected_transport): the transport's present(request)
    answers a choice on a worker thread, bounded by the timeout and Hermes' interrupt."""
    if not _missing("hermes_cli.approval_transport"):
        return
    import dataclasses
    import threading
    import time
    import uuid

    module = types.ModuleType("hermes_cli.approval_transport")

    @dataclasses.dataclass
    class RegisteredApprovalTransport:
        name: str
        present: object
        plugin_id: str
        profile_home: str

    @dataclasses.dataclass
    class ApprovalRequest:
        command: str
        description: str
        pattern_key: str
        pattern_keys: tuple
        session_key: str
        surface: str
        allow_session: bool
        allow_permanent: bool
        timeout_seconds: float
        request_id: str = ""
        digest: str = ""

        @classmethod
        def create(cls, **fields):
            return cls(request_id=uuid.uuid4().hex, **fields)

    @dataclasses.dataclass
    class Result:
        choice: object = None
        failure: object = None

    def invoke_approval_transport(present, request, timeout_seconds, on_poll=None, is_interrupted=None):
        box = {}
        worker = threading.Thread(target=lambda: box.update(choice=present(request)), daemon=True)
        worker.start()
        deadline = time.monotonic() + float(timeout_seconds or 300)
        while worker.is_alive() and time.monotonic() < deadline:
            worker.join(0.1)
            if is_interrupted is not None and is_interrupted():
                return Result(failure="interrupted")
        if "choice" not in box:
            return Result(failure="timeout")
        allowed = ("once", "session", "always", "deny")
        return Result(choice=box["choice"]) if box["choice"] in allowed else Result(failure="invalid")

    module.RegisteredApprovalTransport = RegisteredApprovalTransport
    module.ApprovalRequest = ApprovalRequest
    module.invoke_approval_transport = invoke_approval_transport
    sys.modules["hermes_cli.approval_transport"] = module


def boot(hermes_src, consent=False, skill_raises=False):
    """Puts the tree on sys.path, installs the stand-ins it needs, and runs Hermes' own plugin
    discovery. Returns ("0.21" | "0.18", the plugins module)."""
    sys.dont_write_bytecode = True
    sys.path.insert(0, hermes_src)
    if skill_raises:
        sys.modules["agent.skill_utils"] = None  # import agent.skill_utils now raises ImportError
    if is_v021(hermes_src):
        standins = os.environ.get("MNOTE_HERMES_STANDINS", "")
        if not os.path.exists(os.path.join(standins, "shim_boot.py")):
            raise SystemExit("MNOTE_HERMES_STANDINS does not name the folder holding shim_boot.py")
        os.environ["HERMES_TREE"] = hermes_src
        sys.path.insert(1, standins)
        importlib.import_module("shim_boot")  # stand-ins only where the tree lacks the module
        i18n = sys.modules.get("agent.i18n")
        if getattr(i18n, "__shim__", False):
            # the stand-in prints a prompt's key only; show its arguments too (the description the
            # person reads), as the v0.18 stand-in below does: the prompt's words stay a stand-in's
            i18n.t = lambda key, **kw: key + (" " + " ".join("%s=%s" % kv for kv in sorted(kw.items())) if kw else "")
        _approval_transport_stand_in()
        from hermes_cli import plugins

        # force=True needs gateway.platform_registry (not in the tree): the first discovery loads all
        plugins.discover_plugins()
        import model_tools  # noqa: F401  (its import runs discovery too; idempotent)

        return "0.21", plugins
    if consent:
        _v018_stand_ins()
    from hermes_cli import plugins

    plugins.discover_plugins(force=True)
    return "0.18", plugins


def terminal_tool():
    """tools.terminal_tool (its per-thread approval callback), or a stand-in of the same shape where
    the source does not hold it (both shared trees)."""
    import threading

    try:
        return importlib.import_module("tools.terminal_tool")
    except Exception:
        module = types.ModuleType("tools.terminal_tool")
        module._callback_tls = threading.local()
        module._get_approval_callback = lambda: getattr(module._callback_tls, "approval", None)

        def set_approval_callback(cb):
            module._callback_tls.approval = cb

        module.set_approval_callback = set_approval_callback
        sys.modules["tools.terminal_tool"] = module
        return module


def loaded_plugins(plugins):
    manager = plugins.get_plugin_manager()
    loaded = {}
    for key, plugin in getattr(manager, "_plugins", {}).items():
        loaded[key] = {"enabled": bool(getattr(plugin, "enabled", False)), "error": getattr(plugin, "error", None)}
    return loaded
