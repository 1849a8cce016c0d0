/**
 * cli/main.ts sets up only the verb a command line names (a one-shot `call` does not build nine
 * other commands, issue 33): what a verb prints and refuses must not depend on that. `help <verb>`
 * (every verb set up) and `<verb> --help` (only that one) print the same; the program's help and a
 * misspelt verb still see every verb.
 */
import { runCli } from "../support/paths";

const VERBS = ["generate", "diff", "call", "serve", "mcp", "tools", "kernel", "session", "state", "hermes"];

describe("mnote-tools verbs", () => {
  it("the program's help lists every verb", () => {
    const run = runCli(["--help"]);
    expect(run.status).toBe(0);
    const listed = VERBS.filter((v) => new RegExp(`^  ${v}\\b`, "m").test(run.stdout));
    expect(listed).toEqual(VERBS);
  });

  it.each(["call", "serve", "kernel"])("%s --help prints what help <verb> prints", (verb) => {
    const alone = runCli([verb, "--help"]);
    const fromAll = runCli(["help", verb]);
    expect(alone.status).toBe(0);
    expect(alone.stdout).toContain(`Usage: mnote-tools ${verb}`);
    expect(alone.stdout).toBe(fromAll.stdout);
  });

  it("a misspelt verb is refused with the verb it was probably meant to be", () => {
    const run = runCli(["cal"]);
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/unknown command 'cal'.*Did you mean call\?/);
  });
});
