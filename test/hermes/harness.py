"""Test harness: loads the generated plugin as Hermes would and runs a list of tool calls.

    python3 harness.py <plugin_dir> <steps.json>

Prints one JSON object: the manifest, the registered tools (schemas), the hooks and skills, the
schema problems found, check_fn's answer, and per step the handler's output (parsed), whether it
was a string, whether it raised, and the request envelope the plugin sent (recorded by wrapping
its transport). Jest makes the assertions.
"""

import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts", "hermes"))
from hermes_loader import RecordingContext, call_tool, load_plugin, schema_problems  # noqa: E402


def main():
    plugin_dir, steps_file = sys.argv[1], sys.argv[2]
    with open(steps_file, encoding="utf-8") as f:
        steps = json.load(f)
    if os.environ.get("HARNESS_REGISTER_SKILL_RAISES"):
        # what the real loader does where agent/skill_utils.py cannot be imported
        def failing_register_skill(self, *args, **kwargs):
            raise ImportError("No module named 'agent.skill_utils'")

        RecordingContext.register_skill = failing_register_skill
    manifest, module, ctx = load_plugin(plugin_dir)

    sent = []
    original_send = module._send

    def recording_send(transport, request):
        sent.append(request)
        return original_send(transport, request)

    module._send = recording_send

    results = []
    for step in steps:
        if step.get("run"):
            # something the mnote app does between two tool calls (e.g. re-bind the session)
            subprocess.run(step["run"], check=True, capture_output=True)
            continue
        for key, value in (step.get("env") or {}).items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
        before = len(sent)
        output, raised = call_tool(
            ctx,
            step["tool"],
            step.get("args", {}),
            session_id=step.get("session_id"),
            task_id=step.get("task_id"),
            tool_call_id=step.get("tool_call_id"),
            fire_hook=step.get("fire_hook", True),
            blocked=step.get("blocked", False),
        )
        parsed = None
        if isinstance(output, str):
            try:
                parsed = json.loads(output)
            except ValueError:
                parsed = None
        if step.get("blocked"):
            continue  # the handler never ran: nothing to report but what later steps show
        results.append({
            "name": step.get("name"),
            "is_string": isinstance(output, str),
            "raised": raised,
            "response": parsed,
            "request": sent[-1] if len(sent) > before else None,
            "sent": len(sent) - before,
        })

    print(json.dumps({
        "manifest": manifest,
        "tools": [{"name": t["name"], "toolset": t["toolset"], "schema": t["schema"], "description": t["description"]} for t in ctx.tools.values()],
        "hooks": sorted(ctx.hooks),
        "skills": ctx.skills,
        "check_fn": {name: bool(t["check_fn"]()) for name, t in ctx.tools.items()},
        "problems": schema_problems(ctx, manifest),
        "results": results,
    }, ensure_ascii=False))


if __name__ == "__main__":
    main()
