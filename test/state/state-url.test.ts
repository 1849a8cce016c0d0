/**
 * What --state names: a file, or a postgres:// database; a URL of any other scheme is refused with
 * exit 3 by every command that takes it, and nothing is created (it used to become a local folder
 * named "postgres:" or "redis:", silently).
 */
import { readdirSync } from "node:fs";
import { stateLocation } from "../../cli/state-url";
import { hermesEnvironmentLines } from "../../cli/commands/hermes";
import { runCli } from "../support/paths";
import { tempDir } from "../support/tmp";

describe("--state", () => {
  it.each([
    ["runtime.db", { kind: "file", path: "runtime.db" }],
    [".mnote/runtime.db", { kind: "file", path: ".mnote/runtime.db" }],
    [":memory:", { kind: "file", path: ":memory:" }],
    ["C:\\state\\runtime.db", { kind: "file", path: "C:\\state\\runtime.db" }],
    ["postgres://mnote@db.internal:5432/mnote", { kind: "postgres", url: "postgres://mnote@db.internal:5432/mnote" }],
    ["postgresql://u:p@h/db?sslmode=require", { kind: "postgres", url: "postgresql://u:p@h/db?sslmode=require" }],
  ])("%s is %j", (text, location) => {
    expect(stateLocation(text)).toEqual(location);
  });

  it.each(["redis://127.0.0.1:6379/0", "mysql://h/db", "file:runtime.db", "https://example.com/state", "postgres://h"])(
    "%s is refused",
    (text) => {
      expect(() => stateLocation(text)).toThrow(/--state/);
    },
  );

  it.each([
    ["session", "show", "s1"],
    [
      "session",
      "grant",
      "--session",
      "s",
      "--workspace",
      "w",
      "--document",
      "d",
      "--actor",
      "a",
      "--scope",
      "page.read",
    ],
    ["call"],
    ["serve", "--port", "0", "--insecure-no-auth"],
    ["mcp"],
    ["state", "migrate"],
  ])("%s with an unsupported scheme exits 3 and creates nothing", (...args) => {
    for (const state of ["redis://127.0.0.1:6379/0", "mysql://u@h/db"]) {
      const cwd = tempDir("mnote-state-url-");
      const run = runCli([...args, "--state", state], { cwd, input: "" });
      expect([run.status, run.stderr]).toEqual([3, expect.stringMatching(/--state .*not supported/)]);
      expect(readdirSync(cwd)).toEqual([]);
      // the same through the environment variable
      const env = runCli(args, { cwd, input: "", env: { MNOTE_TOOLS_STATE: state } });
      expect(env.status).toBe(3);
      expect(readdirSync(cwd)).toEqual([]);
    }
  });

  it("a postgres:// URL nobody answers on exits 3, names the URL without its password, and creates nothing", () => {
    const cwd = tempDir("mnote-state-url-");
    const run = runCli(["session", "show", "s1", "--state", "postgres://mnote:sekret@127.0.0.1:9/mnote"], { cwd });
    expect(run.status).toBe(3);
    expect(run.stderr).toMatch(/cannot use PostgreSQL/);
    expect(run.stderr).not.toMatch(/sekret/);
    expect(readdirSync(cwd)).toEqual([]);
  });

  it("hermes install passes a postgres:// state on as it is (a file path is made absolute)", () => {
    const url = "postgres://mnote@db.internal:5432/mnote";
    expect(hermesEnvironmentLines({ state: url }, "/somewhere").cli).toContain(`MNOTE_TOOLS_STATE=${url}`);
    expect(() => hermesEnvironmentLines({ state: "redis://h:6379/0" }, "/somewhere")).toThrow(/not supported/);
  });
});
