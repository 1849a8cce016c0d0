/**
 * The README's way to run the server as a service ("As a service, signal the server, not npx"):
 * the start script exactly as documented, with the installed binary node_modules/.bin/mnote-tools
 * and exec, so the pid a supervisor knows is the server's; SIGTERM to it stops the server and frees
 * the port. (npx would end on SIGTERM and leave its child listening.)
 */
import { spawn } from "node:child_process";
import { mkdirSync, readFileSync, symlinkSync } from "node:fs";
import { connect } from "node:net";
import { join } from "node:path";
import { cliPath, repoRoot } from "../support/paths";
import { seededProject } from "../support/project";
import { tempDir } from "../support/tmp";

/** The start script's command line, from the README. */
function documentedScript(): string {
  const readme = readFileSync(join(repoRoot, "README.md"), "utf8");
  const line = /^\s*(cd \/srv\/app && exec node_modules\/\.bin\/mnote-tools serve [^\n]*)$/m.exec(readme)?.[1];
  if (!line) throw new Error("README.md no longer shows the service start script");
  return line;
}

const refused = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(port, "127.0.0.1");
    socket.once("connect", () => {
      socket.destroy();
      resolve(false);
    });
    socket.once("error", () => resolve(true));
  });

describe("the documented service start script", () => {
  it("runs the server as the script's own pid, and SIGTERM to that pid stops it and frees the port", async () => {
    // an app folder as npm install makes it (node_modules/.bin/mnote-tools links to the package's bin)
    const app = tempDir("mnote-app-");
    mkdirSync(join(app, "node_modules", ".bin"), { recursive: true });
    symlinkSync(cliPath, join(app, "node_modules", ".bin", "mnote-tools"));
    const data = seededProject([]);
    const script = documentedScript()
      .replace("/srv/app", app)
      .replace("/srv/mnote/kernel.db", data.db)
      .replace("/srv/mnote/runtime.db", data.state);
    const child = spawn("sh", ["-c", script], {
      env: { ...process.env, MNOTE_TOOLS_TOKEN: "T", MNOTE_TOOLS_HOST_TOKEN: "H", MNOTE_TOOLS_PORT: "0" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const exited = new Promise<[number | null, string | null]>((resolve) =>
      child.once("exit", (code, signal) => resolve([code, signal])),
    );
    let out = "";
    const listening = await new Promise<{ listening: string; pid: number }>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`not listening after 60 s: ${out}`)), 60_000);
      child.stdout!.on("data", (d: Buffer) => {
        out += d.toString("utf8");
        const line = out.split("\n").find((l) => l.includes('"listening"'));
        if (line) {
          clearTimeout(timer);
          resolve(JSON.parse(line));
        }
      });
      child.once("exit", (code) => reject(new Error(`exited with ${code} before listening`)));
    });
    // exec: the pid the supervisor started is the server itself
    expect(listening.pid).toBe(child.pid);
    const port = Number(new URL(listening.listening).port);
    expect(await refused(port)).toBe(false);
    child.kill("SIGTERM");
    expect(await exited).toEqual([0, null]);
    expect(await refused(port)).toBe(true);
  });
});
