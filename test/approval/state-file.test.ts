/**
 * Issue 28 item 3: the state file that keeps the approval signing key is private. `session grant`
 * and the runtime create it 0600 (before: 0644 under the usual umask, so anyone on the machine
 * with the tool token could mint an approval), and an existing one that group or others can read
 * stops `call` with exit 3 before any call while the key lives there (no MNOTE_APPROVAL_SECRET).
 */
import { chmodSync, existsSync, statSync } from "node:fs";
import { join } from "node:path";
import { runCli } from "../support/paths";
import { seededProject } from "../support/project";
import { makeRequest } from "../support/requests";
import { hashDatabaseFile } from "../support/runtime";
import { tempDir } from "../support/tmp";
import { createRuntime } from "../../runtime/runtime";
import { EMPTY_POLICY } from "../../runtime/approval/policy";

const NO_ENV = { MNOTE_APPROVAL_POLICY: undefined, MNOTE_APPROVAL_SECRET: undefined };
const owner = { sessionId: "s_owner", actorId: "user_1" };
const REPLACE = { content: [{ type: "paragraph", text: "Private." }], mode: "replace" };
const modeOf = (path: string) => statSync(path).mode & 0o777;
const posix = process.platform !== "win32";

(posix ? describe : describe.skip)("approval: the state file holding the signing key", () => {
  it("`session grant` creates it 0600; `call` keeps the key there and the file (and its WAL files) stay 0600", () => {
    const p = seededProject([{ session: "s_owner", actor: "user_1" }]);
    expect(modeOf(p.state)).toBe(0o600);
    const run = runCli(["call", "--db", p.db, "--state", p.state], {
      input: JSON.stringify(makeRequest("mnote.page.save", REPLACE, {}, owner)),
      env: NO_ENV,
    });
    expect(run.status).toBe(0);
    expect(JSON.parse(run.stdout).error.code).toBe("mnote_tool_approval_required");
    for (const f of [p.state, `${p.state}-wal`, `${p.state}-shm`])
      if (existsSync(f)) expect([f, modeOf(f)]).toEqual([f, 0o600]);
  });

  it("a runtime on a new state file creates it 0600 (its own key inside)", async () => {
    const state = join(tempDir(), "deep", "state.db");
    const runtime = createRuntime({
      kernel: { kind: "embedded", path: ":memory:" },
      statePath: state,
      approval: { policy: EMPTY_POLICY },
    });
    try {
      expect(modeOf(state)).toBe(0o600);
      expect(runtime.state.prepare("SELECT COUNT(*) AS n FROM approval_secret").get()).toEqual({ n: 1 });
    } finally {
      await runtime.close();
    }
  });

  it.each([
    ["0644", 0o644],
    ["0640", 0o640],
    ["0604", 0o604],
  ])(
    "an existing state file of mode %s: `call` stops with exit 3 before any call, kernel untouched; with MNOTE_APPROVAL_SECRET it runs",
    (_octal, mode) => {
      const p = seededProject([{ session: "s_owner", actor: "user_1" }]);
      chmodSync(p.state, mode);
      const before = hashDatabaseFile(p.db);
      const request = JSON.stringify(makeRequest("mnote.page.save", { ...REPLACE, mode: "append" }, {}, owner));
      const run = runCli(["call", "--db", p.db, "--state", p.state], { input: request, env: NO_ENV });
      expect([run.status, run.stdout]).toEqual([3, ""]);
      expect(run.stderr).toContain(
        `readable by group or others (mode 0${mode.toString(8)}): make it private (chmod 600 ${p.state})`,
      );
      expect(hashDatabaseFile(p.db)).toBe(before);

      const withSecret = runCli(["call", "--db", p.db, "--state", p.state], {
        input: request,
        env: { ...NO_ENV, MNOTE_APPROVAL_SECRET: "an approval secret of at least thirty-two bytes" },
      });
      expect(withSecret.status).toBe(0);
      expect(JSON.parse(withSecret.stdout).ok).toBe(true);
    },
  );
});
