"""Loads the generated plugin with the REAL Hermes Agent modules (v0.18.0), kept outside the repo.

    python3 real_hermes.py <hermes_src> <plugin_dir> <config.json>

config: {"url", "token", "session_id", "skill_raises": bool, "calls"?: [[tool, args, call_id], ...]}
(without "calls": the blocked/allowed/get calls below). Installs the plugin and a second
plugin that blocks one call in pre_tool_call into a scratch HERMES_HOME, runs Hermes' own
discover_plugins() and model_tools.handle_function_call(), and prints one JSON report: the tools
Hermes registered, whether the plugin loaded, and per call the handler's output and the request
envelope the plugin sent. Jest makes the assertions (test/hermes/real-hermes.test.ts).
"""

import json
import os
import shutil
import sys
import tempfile

BLOCKER = '''
def _block(tool_name=None, args=None, **_):
    if tool_name == "mnote_page_update_title" and (args or {}).get("title") == "Blocked":
        return {"action": "block", "message": "blocked by the test's policy plugin"}
    return None


def register(ctx):
    ctx.register_hook("pre_tool_call", _block)
'''


def main():
    hermes_src, plugin_dir, config_file = sys.argv[1], sys.argv[2], sys.argv[3]
    with open(config_file, encoding="utf-8") as f:
        config = json.load(f)
    sys.dont_write_bytecode = True
    home = tempfile.mkdtemp(prefix="hermes-home-")
    bundled = tempfile.mkdtemp(prefix="hermes-bundled-")
    shutil.copytree(plugin_dir, os.path.join(home, "plugins", "mnote"))
    os.makedirs(os.path.join(home, "plugins", "blocker"))
    with open(os.path.join(home, "plugins", "blocker", "plugin.yaml"), "w", encoding="utf-8") as f:
        f.write("name: blocker\nversion: 0.0.1\ndescription: blocks one call\n")
    with open(os.path.join(home, "plugins", "blocker", "__init__.py"), "w", encoding="utf-8") as f:
        f.write(BLOCKER)
    with open(os.path.join(home, "config.yaml"), "w", encoding="utf-8") as f:
        f.write("plugins:\n  enabled: [mnote, blocker]\n")
    os.environ.update({"HERMES_HOME": home, "HERMES_BUNDLED_PLUGINS": bundled, "MNOTE_TOOLS_URL": config["url"], "MNOTE_TOOLS_TOKEN": config["token"]})
    sys.path.insert(0, hermes_src)
    if config.get("skill_raises"):
        sys.modules["agent.skill_utils"] = None  # import agent.skill_utils now raises ImportError

    from hermes_cli import plugins as hermes_plugins
    hermes_plugins.discover_plugins(force=True)
    from tools.registry import registry
    import model_tools

    manager = hermes_plugins.get_plugin_manager()
    loaded = {}
    for key, plugin in getattr(manager, "_plugins", {}).items():
        loaded[key] = {"enabled": bool(getattr(plugin, "enabled", False)), "error": getattr(plugin, "error", None)}
    module = sys.modules.get("hermes_plugins.mnote")
    sent = []
    if module is not None:
        original = module._send

        def recording(transport, request):
            sent.append(request)
            return original(transport, request)

        module._send = recording

    calls = []
    for name, args, call_id in config.get("calls") or [
        ("mnote_page_update_title", {"title": "Blocked"}, "call_blocked"),
        ("mnote_page_update_title", {"title": "Allowed"}, "call_allowed"),
        ("mnote_page_get", {"includeBlocks": False}, "call_get"),
    ]:
        before = len(sent)
        output = model_tools.handle_function_call(name, dict(args) if isinstance(args, dict) else args, task_id="task_1", tool_call_id=call_id, session_id=config["session_id"])
        calls.append({"tool": name, "tool_call_id": call_id, "output": output, "request": sent[-1] if len(sent) > before else None})

    names = sorted(n for n in registry.get_all_tool_names() if n.startswith("mnote_")) if hasattr(registry, "get_all_tool_names") else sorted(n for n in getattr(registry, "_tools", {}) if n.startswith("mnote_"))
    print(json.dumps({"tools": names, "plugins": loaded, "calls": calls}, default=str))


if __name__ == "__main__":
    main()
