/**
 * Property (fast-check, fixed seed), issue 18: over every tool and every transport (`call` CLI
 * processes, HTTP `serve`, MCP over stdio and Streamable HTTP, the Hermes plugin through the
 * python harness), a model's arguments holding a `__proto__` / `constructor` / `prototype` member
 * at any depth, or a `dryRun` that is not a boolean ("true", 1, "yes", {}, []), are answered
 * mnote_tool_invalid_input, and the kernel's state hash is unchanged. The cases travel as JSON
 * text, so a "__proto__" member reaches every parser as written.
 *
 * Processes are spawned sparingly: one serve, one MCP stdio server, one MCP HTTP server, one
 * harness run for all cases, and a few `call` processes.
 */
import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { cliPath, generatedDir, repoRoot } from "../support/paths";
import { seededProject } from "../support/project";
import { postJson, start } from "../support/processes";
import { tempDir } from "../support/tmp";
import { hashDatabaseFile } from "../support/runtime";
import { makeRequest } from "../support/requests";
import { toolList, type ToolDescriptor } from "../../generated/registry";
import { PROTOTYPE_NAMES } from "../../generated/raise";

/** Valid model arguments per tool, with nested places to hide a member in. */
const BASE: Record<string, Record<string, unknown>> = {
  "mnote.page.get": { includeBlocks: true },
  "mnote.page.save": {
    content: [
      { type: "paragraph", text: "x" },
      { type: "heading", text: "h", level: 2 },
    ],
  },
  "mnote.page.update_title": { title: "T" },
  "mnote.page.update_options": { options: { smallText: true } },
  "mnote.artifact.create_summary": { summary: "S" },
  "mnote.artifact.create_ai_note": { content: "N" },
};

interface HostileCase {
  tool: ToolDescriptor;
  /** The model's arguments (dryRun among them). */
  args: Record<string, unknown>;
  /** The forbidden member's name, or "dryRun". */
  what: string;
}

/** Adds `name: value` as an own member (defineProperty: "__proto__" stays a member) of the container `steps` deep. */
function hide(args: Record<string, unknown>, steps: number[], name: string, value: unknown): Record<string, unknown> {
  const copy = JSON.parse(JSON.stringify(args)) as Record<string, unknown>;
  let at: Record<string, unknown> = copy;
  for (const step of steps) {
    // descend into an existing object or array element, or make a new nested object
    const children = Object.values(at).filter((v) => typeof v === "object" && v !== null) as unknown[];
    const next = children.length > 0 ? children[step % children.length] : undefined;
    if (Array.isArray(next) && next.length > 0 && typeof next[step % next.length] === "object")
      at = next[step % next.length] as Record<string, unknown>;
    else if (next && !Array.isArray(next)) at = next as Record<string, unknown>;
    else {
      const made: Record<string, unknown> = {};
      at[`nest${step}`] = [made];
      at = made;
    }
  }
  Object.defineProperty(at, name, { value, enumerable: true, writable: true, configurable: true });
  return copy;
}

const hostile = (tool: ToolDescriptor): fc.Arbitrary<HostileCase> => {
  const member = fc
    .record({
      name: fc.constantFrom(...PROTOTYPE_NAMES),
      steps: fc.array(fc.nat(5), { maxLength: 4 }),
      value: fc.constantFrom<unknown>({ dryRun: true }, { level: 99 }, { checked: true }, 1, "x", null, []),
    })
    .map(({ name, steps, value }) => ({ tool, args: hide(BASE[tool.name]!, steps, name, value), what: name }));
  if (tool.dryRun !== "required") return member;
  const dryRun = fc
    .constantFrom<unknown>("true", 1, "yes", {}, [], "false", 0)
    .map((value) => ({ tool, args: { ...BASE[tool.name]!, dryRun: value }, what: "dryRun" }));
  return fc.oneof(member, dryRun);
};

/** cases per tool: a fixed seed, so a failure names a case that can be run again */
function cases(perTool: number, seed: number): HostileCase[] {
  return toolList.flatMap((tool) => fc.sample(hostile(tool), { numRuns: perTool, seed }));
}

/** The request envelope a program would send with these arguments (dryRun in the envelope). */
function envelope(c: HostileCase, i: number): string {
  const { dryRun, ...args } = c.args;
  const request = makeRequest(c.tool.name, args, {}, { sessionId: "s_owner" });
  if (c.tool.dryRun === "required") request.dryRun = dryRun ?? false;
  request.idempotencyKey = `hostile-${i}`;
  return JSON.stringify(request);
}

/** A minimal MCP client on a stdio server: JSON-RPC lines in, answers by id. */
function mcpStdio(args: string[]) {
  const child = spawn(process.execPath, [cliPath, "mcp", ...args], { cwd: repoRoot, stdio: ["pipe", "pipe", "pipe"] });
  const waiting = new Map<number, (message: any) => void>();
  let buffer = "";
  child.stdout.on("data", (d: Buffer) => {
    buffer += d.toString("utf8");
    let nl: number;
    while ((nl = buffer.indexOf("\n")) >= 0) {
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      const message = JSON.parse(line);
      waiting.get(message.id)?.(message);
    }
  });
  let next = 1;
  /** Sends the text as one line (raw JSON: members stay as written). */
  const request = (method: string, paramsJson: string): Promise<any> => {
    const id = next++;
    const answer = new Promise<any>((r) => waiting.set(id, r));
    child.stdin.write(`{"jsonrpc":"2.0","id":${id},"method":${JSON.stringify(method)},"params":${paramsJson}}\n`);
    return answer;
  };
  return {
    request,
    notify: (method: string) => child.stdin.write(`{"jsonrpc":"2.0","method":${JSON.stringify(method)}}\n`),
    close: () => new Promise<void>((r) => (child.once("close", () => r()), child.stdin.end())),
  };
}

const toolsCallParams = (c: HostileCase) =>
  `{"name":${JSON.stringify(c.tool.providerName)},"arguments":${JSON.stringify(c.args)}}`;

/** What a model transport must answer: invalid_input naming the member (raiseRefusal runs before all else). */
function expectModelRefusal(c: HostileCase, envelopeView: any) {
  expect([c.what, envelopeView.ok, envelopeView.error?.code, envelopeView.toolName]).toEqual([
    c.what,
    false,
    "mnote_tool_invalid_input",
    c.tool.providerName,
  ]);
  const pointer: string = envelopeView.error.pointer;
  expect([c.what, pointer.endsWith(`/${c.what}`)]).toEqual([c.what, true]);
}

function runPython(args: string[], env: NodeJS.ProcessEnv): Promise<string> {
  const child = spawn("python3", args, { env: { PATH: process.env.PATH, ...env }, stdio: ["ignore", "pipe", "pipe"] });
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  child.stdout.on("data", (d: Buffer) => out.push(d));
  child.stderr.on("data", (d: Buffer) => err.push(d));
  return new Promise((resolve, reject) =>
    child.on("close", (status) =>
      status === 0 ? resolve(Buffer.concat(out).toString("utf8")) : reject(new Error(Buffer.concat(err).toString())),
    ),
  );
}

function runCall(p: { db: string; state: string }, input: string): Promise<any> {
  const child = spawn(process.execPath, [cliPath, "call", "--db", p.db, "--state", p.state], {
    cwd: repoRoot,
    stdio: ["pipe", "pipe", "pipe"],
  });
  let out = "";
  child.stdout.on("data", (d: Buffer) => (out += d.toString("utf8")));
  child.stdin.end(input);
  return new Promise((resolve) => child.on("close", () => resolve(JSON.parse(out))));
}

describe("hostile model arguments, every tool x every transport: invalid_input, the kernel unchanged", () => {
  it("call, serve, MCP (stdio and Streamable HTTP), and the Hermes plugin", async () => {
    const p = seededProject([{ session: "s_owner", actor: "user_1" }]);
    const before = hashDatabaseFile(p.db);
    const all = cases(6, 18);
    const serve = await start(["serve", "--db", p.db, "--state", p.state, "--port", "0", "--token", "tok"]);
    const mcpHttp = await start([
      "mcp",
      "--http",
      "--port",
      "0",
      "--token",
      "mtok",
      "--session",
      "s_owner",
      "--db",
      p.db,
      "--state",
      p.state,
    ]);
    const stdio = mcpStdio(["--session", "s_owner", "--db", p.db, "--state", p.state]);
    try {
      // HTTP serve: the envelope API (a program's call with these args)
      for (const [i, c] of all.entries()) {
        const r = await postJson(`${serve.url}/v1/tools/call`, envelope(c, i), "tok");
        expect([c.what, r.body.ok, r.body.error?.code]).toEqual([c.what, false, "mnote_tool_invalid_input"]);
      }

      // MCP over stdio: raw JSON-RPC lines
      await stdio.request(
        "initialize",
        '{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"hostile","version":"1"}}',
      );
      stdio.notify("notifications/initialized");
      for (const c of all) {
        const answer = await stdio.request("tools/call", toolsCallParams(c));
        expect([c.what, answer.result?.isError]).toEqual([c.what, true]);
        expectModelRefusal(c, answer.result.structuredContent);
      }

      // MCP over Streamable HTTP: the raw body
      for (const [i, c] of all.entries()) {
        const res = await fetch(mcpHttp.url, {
          method: "POST",
          headers: {
            authorization: "Bearer mtok",
            "content-type": "application/json",
            accept: "application/json, text/event-stream",
          },
          body: `{"jsonrpc":"2.0","id":${i + 1},"method":"tools/call","params":${toolsCallParams(c)}}`,
        });
        const answer = (await res.json()) as any;
        expect([c.what, answer.result?.isError]).toEqual([c.what, true]);
        expectModelRefusal(c, answer.result.structuredContent);
      }

      // the Hermes plugin, one harness process for every case
      const file = join(tempDir("mnote-hostile-"), "steps.json");
      writeFileSync(
        file,
        `[${all
          .map(
            (c, i) =>
              `{"name":"c${i}","tool":${JSON.stringify(c.tool.providerName)},"args":${JSON.stringify(c.args)},"session_id":"s_owner","task_id":"t","tool_call_id":"call_${i}"}`,
          )
          .join(",")}]`,
      );
      const report = JSON.parse(
        await runPython(
          [join(repoRoot, "test", "hermes", "harness.py"), join(generatedDir, "hermes-plugin", "mnote"), file],
          {
            MNOTE_TOOLS_URL: serve.url,
            MNOTE_TOOLS_TOKEN: "tok",
          },
        ),
      );
      all.forEach((c, i) => {
        const r = report.results.find((x: { name: string }) => x.name === `c${i}`);
        expectModelRefusal(c, r.response);
        expect([c.what, r.request]).toEqual([c.what, null]); // refused before anything was sent
      });

      // `call`, one process per request: one case per tool
      const perTool = toolList.map((tool) => all.findIndex((c) => c.tool === tool));
      const answers = await Promise.all(perTool.map((i) => runCall(p, envelope(all[i]!, 1000 + i))));
      answers.forEach((a, k) =>
        expect([all[perTool[k]!]!.what, a.ok, a.error?.code]).toEqual([
          all[perTool[k]!]!.what,
          false,
          "mnote_tool_invalid_input",
        ]),
      );

      expect(hashDatabaseFile(p.db)).toBe(before);
    } finally {
      await stdio.close();
      await serve.stop();
      await mcpHttp.stop();
    }
  });
});
