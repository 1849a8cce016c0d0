"""Loads a Hermes directory plugin the way the Hermes agent does, with the standard library only.

Hermes reads plugin.yaml, imports the plugin folder as a package, calls register(ctx), keeps the
tools, hooks and skills it registered, calls pre_tool_call hooks before a tool runs and then the
handler with (args, task_id=..., session_id=..., user_task=...), expecting a string back. This
module does the same against a recording ctx, so tests and the demo exercise the plugin as Hermes
would, without Hermes installed.
"""

import importlib.util
import json
import os
import re
import sys

# never leave __pycache__ in generated/: the drift check would see it
sys.dont_write_bytecode = True

PROVIDER_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")


def parse_plugin_yaml(text):
    """The YAML subset plugin.yaml uses: top-level scalars, lists of scalars, lists of mappings."""
    data = {}
    current_key = None
    current_item = None
    for raw in text.splitlines():
        line = raw.split(" #")[0].rstrip() if not raw.lstrip().startswith("#") else ""
        if not line.strip():
            continue
        if not line.startswith(" "):
            key, _, value = line.partition(":")
            current_key = key.strip()
            data[current_key] = _scalar(value.strip()) if value.strip() else []
            current_item = None
            continue
        stripped = line.strip()
        if stripped.startswith("- "):
            entry = stripped[2:]
            if re.match(r"^[A-Za-z_][A-Za-z0-9_]*:\s", entry + " ") and ":" in entry:
                key, _, value = entry.partition(":")
                current_item = {key.strip(): _scalar(value.strip())}
                data[current_key].append(current_item)
            else:
                current_item = None
                data[current_key].append(_scalar(entry))
        elif current_item is not None and ":" in stripped:
            key, _, value = stripped.partition(":")
            current_item[key.strip()] = _scalar(value.strip())
    return data


def _scalar(value):
    if value.startswith('"') and value.endswith('"'):
        return json.loads(value)
    if value in ("true", "false"):
        return value == "true"
    return value


class RecordingContext:
    """The ctx Hermes passes to register(ctx), recording what the plugin registers."""

    def __init__(self):
        self.tools = {}
        self.hooks = {}
        self.skills = {}

    def register_tool(self, name, toolset, schema, handler, check_fn=None, requires_env=None, is_async=False, description="", emoji=""):
        if name in self.tools:
            raise ValueError("tool registered twice: " + name)
        self.tools[name] = {"name": name, "toolset": toolset, "schema": schema, "handler": handler, "check_fn": check_fn, "description": description}

    def register_hook(self, name, fn):
        self.hooks.setdefault(name, []).append(fn)

    def fire(self, hook_name, **kwargs):
        """Calls hooks with every keyword Hermes passes; a hook must accept ones it does not know."""
        for fn in self.hooks.get(hook_name, []):
            fn(**kwargs)

    def register_skill(self, name, path, description="", frontmatter=None):
        # Hermes calls path.exists(): a plain string fails there, as it would here
        if not path.exists():
            raise FileNotFoundError(str(path))
        if not re.match(r"^[a-zA-Z0-9_-]+$", name):
            raise ValueError("bad skill name: " + name)
        self.skills[name] = str(path)

    def register_command(self, *args, **kwargs):
        pass


def load_plugin(plugin_dir, package_name="hermes_plugins_mnote"):
    """Reads plugin.yaml, imports the folder as a package, calls register(ctx)."""
    with open(os.path.join(plugin_dir, "plugin.yaml"), encoding="utf-8") as f:
        manifest = parse_plugin_yaml(f.read())
    spec = importlib.util.spec_from_file_location(package_name, os.path.join(plugin_dir, "__init__.py"), submodule_search_locations=[plugin_dir])
    module = importlib.util.module_from_spec(spec)
    sys.modules[package_name] = module
    spec.loader.exec_module(module)
    ctx = RecordingContext()
    module.register(ctx)
    return manifest, module, ctx


def schema_problems(ctx, manifest):
    """What a model provider or Hermes' registry would reject, as a list of messages."""
    problems = []
    if sorted(ctx.tools) != sorted(manifest.get("provides_tools", [])):
        problems.append("registered tools differ from provides_tools")
    for name, tool in ctx.tools.items():
        schema = tool["schema"]
        if not PROVIDER_NAME.match(name):
            problems.append(name + ": name does not match ^[a-zA-Z0-9_-]{1,64}$")
        if tool["toolset"] != "mnote":
            problems.append(name + ": toolset is not mnote")
        if not callable(tool["handler"]) or not callable(tool["check_fn"]):
            problems.append(name + ": handler and check_fn must be callable")
        if set(schema) != {"name", "description", "parameters"} or schema.get("name") != name:
            problems.append(name + ": schema must be {name, description, parameters}")
        if not isinstance(schema.get("description"), str) or len(schema["description"]) < 20:
            problems.append(name + ": description missing or too short")
        params = schema.get("parameters")
        if not isinstance(params, dict) or params.get("type") != "object" or not isinstance(params.get("properties"), dict):
            problems.append(name + ": parameters must be an object schema")
        elif "$ref" in json.dumps(params) or "$defs" in params:
            problems.append(name + ": parameters must be self-contained (no $ref)")
    return problems


def call_tool(ctx, name, args, session_id=None, task_id=None, tool_call_id=None, fire_hook=True, blocked=False):
    """One tool call as Hermes makes it: pre_tool_call hooks, then the handler, then post_tool_call.
    With blocked, Hermes fires pre_tool_call and then blocks the call (a guardrail or another
    plugin): the handler never runs, post_tool_call reports status "blocked". Returns (output, raised)."""
    common = dict(
        tool_name=name,
        args=args if isinstance(args, dict) else {},
        task_id=task_id or "",
        session_id=session_id or "",
        tool_call_id=tool_call_id or "",
        turn_id="turn_1",
        api_request_id="req_1",
        middleware_trace=[],
    )
    if fire_hook:
        # as Hermes does: empty values as "", and more keywords than the plugin needs
        ctx.fire("pre_tool_call", telemetry_schema_version=1, **common)
    if blocked:
        output = json.dumps({"error": "blocked by policy"})
        if fire_hook and blocked != "no_post":  # "no_post": a path that reports nothing afterwards
            ctx.fire("post_tool_call", result=output, status="blocked", error_type="plugin_block", **common)
        return output, None
    try:
        output = ctx.tools[name]["handler"](args, task_id=task_id, session_id=session_id, user_task="(test)")
    except BaseException as exc:  # the handler must never raise; report it if it does
        return None, repr(exc)
    if fire_hook:
        ctx.fire("post_tool_call", result=output, status="ok", duration_ms=1, **common)
    return output, None
