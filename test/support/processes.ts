/** Long-running CLI processes (serve, kernel serve) for tests: started on a free port, stopped after. */
import { spawn, type ChildProcess } from "node:child_process";
import { cliPath, repoRoot } from "./paths";

export interface Running {
  url: string;
  process: ChildProcess;
  stderr: string[];
  /** SIGTERM, then the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

const running = new Set<Running>();

export function start(
  args: readonly string[],
  options: { env?: NodeJS.ProcessEnv; cwd?: string; timeoutMs?: number } = {},
): Promise<Running> {
  const child = spawn(process.execPath, [cliPath, ...args], {
    cwd: options.cwd ?? repoRoot,
    env: { ...process.env, ...options.env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const stderr: string[] = [];
  let buffered = "";
  child.stderr!.on("data", (d: Buffer) => {
    buffered += d.toString("utf8");
    const lines = buffered.split("\n");
    buffered = lines.pop()!;
    stderr.push(...lines);
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`${args.join(" ")} did not start: ${stderr.join("\n")}`));
    }, options.timeoutMs ?? 60_000); // a Node start at load 20 on 2 cores takes seconds
    let out = "";
    child.stdout!.on("data", (d: Buffer) => {
      out += d.toString("utf8");
      const line = out.split("\n").find((l) => l.includes('"listening"'));
      if (line) {
        clearTimeout(timer);
        const proc: Running = {
          url: JSON.parse(line).listening,
          process: child,
          stderr,
          stop: async (signal = "SIGTERM") => {
            running.delete(proc);
            if (child.exitCode === null && child.signalCode === null) child.kill(signal);
            return exited;
          },
        };
        running.add(proc);
        resolve(proc);
      }
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`${args.join(" ")} exited with ${code} before listening: ${stderr.join("\n")}`));
    });
  });
}

afterAll(async () => {
  await Promise.all([...running].map((p) => p.stop("SIGKILL")));
});

export async function postJson(url: string, body: unknown, token?: string): Promise<{ status: number; body: any }> {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}
