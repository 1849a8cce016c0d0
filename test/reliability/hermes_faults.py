"""Drives the generated plugin through the REAL Hermes Agent call path (v0.18.0 or v0.21, kept
outside the repo; test/hermes/hermes_boot.py boots either) for the fault matrix (fault-matrix.test.ts).

    python3 hermes_faults.py <hermes_src> <plugin_dir> <config.json>

config: {"env": {MNOTE_TOOLS_URL/TOKEN or MNOTE_TOOLS_CLI, MNOTE_TOOLS_TIMEOUT, ...}, "session_id",
"home"?: the HERMES_HOME to use (a restarted Hermes is given the same one, as a real restart keeps
its profile: on v0.21 the plugin's ctx.state lives there)};
then one model tool call per line on stdin: [tool, args, tool_call_id, timeout seconds (optional)]. One process is one Hermes
run: the plugin's memory lives as long as it does (a test kills it to restart Hermes). Installs the plugin into a scratch
HERMES_HOME, loads it with Hermes' own discover_plugins(), and makes each call through
model_tools.handle_function_call, which fires the pre_tool_call hooks once (where the plugin parks
the tool call id) and then runs the handler, as Hermes does for a model's tool call.
After each call one JSON line is printed and flushed at once ({"tool_call_id", "output",
"requests": the envelopes the plugin sent}), so a test that kills this process mid-call still has
the lines before it. Jest makes the assertions.
"""

import json
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "hermes"))
import hermes_boot  # noqa: E402


def main():
    hermes_src, plugin_dir, config_file = sys.argv[1], sys.argv[2], sys.argv[3]
    with open(config_file, encoding="utf-8") as f:
        config = json.load(f)
    home = config.get("home") or tempfile.mkdtemp(prefix="hermes-home-")
    bundled = tempfile.mkdtemp(prefix="hermes-bundled-")
    shutil.copytree(plugin_dir, os.path.join(home, "plugins", "mnote"), dirs_exist_ok=True)
    with open(os.path.join(home, "config.yaml"), "w", encoding="utf-8") as f:
        f.write("plugins:\n  enabled: [mnote]\n")
    os.environ.update({"HERMES_HOME": home, "HERMES_BUNDLED_PLUGINS": bundled})
    os.environ.update(config["env"])
    hermes_boot.boot(hermes_src)
    import model_tools

    module = sys.modules.get("hermes_plugins.mnote")
    if module is None:
        raise SystemExit("the mnote plugin did not load")
    sent = []
    original = module._send

    def recording(transport, request):
        sent.append(request)
        return original(transport, request)

    module._send = recording
    print(json.dumps({"ready": True}), flush=True)
    for line in sys.stdin:
        if not line.strip():
            continue
        name, args, call_id, *rest = json.loads(line)
        if rest:
            # the host's timeout for this call (the plugin reads MNOTE_TOOLS_TIMEOUT per call)
            os.environ["MNOTE_TOOLS_TIMEOUT"] = str(rest[0])
        before = len(sent)
        output = model_tools.handle_function_call(name, dict(args), task_id="task_1", tool_call_id=call_id, session_id=config["session_id"])
        print(json.dumps({"tool_call_id": call_id, "output": output, "requests": sent[before:]}, default=str), flush=True)


if __name__ == "__main__":
    main()
