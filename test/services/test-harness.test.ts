/**
 * What the test run itself promises a newcomer: the reasons of skipped tests are printed under
 * Jest's summary (whole skipped suites included), and the real-Hermes suites find
 * shared/hermes-agent-v0.18.0 beside the clone without MNOTE_HERMES_SRC.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../support/tmp";

const Reporter = require("../support/summary-reporter.js") as {
  skipReasons: (rootDir: string, results: unknown, onlyReasoned?: boolean) => string[];
};
const { defaultHermesSrc, defaultHermesNext } = require("../support/hermes-setup.js") as {
  defaultHermesSrc: (env: NodeJS.ProcessEnv, repoRoot: string) => string | undefined;
  defaultHermesNext: (
    env: NodeJS.ProcessEnv,
    repoRoot: string,
  ) => { src: string | undefined; standins: string | undefined };
};

const test = (status: string, title: string, ancestorTitles: string[] = []) => ({ status, title, ancestorTitles });

describe("the skip reasons under Jest's summary", () => {
  it("names each reason once per file, with how many tests it skipped; passed tests are not listed", () => {
    const results = {
      testResults: [
        {
          testFilePath: "/r/test/a.test.ts",
          testResults: [
            test("pending", "one", [
              "the Redis stores (skipped: redis-server not found (apt-get install redis-server))",
            ]),
            test("pending", "two", [
              "the Redis stores (skipped: redis-server not found (apt-get install redis-server))",
            ]),
            test("passed", "three"),
          ],
        },
        {
          testFilePath: "/r/test/b.test.ts",
          testResults: [test("pending", "plain skip", ["outer"]), test("todo", "later")],
        },
      ],
    };
    expect(Reporter.skipReasons("/r", results)).toEqual([
      "  test/a.test.ts: the Redis stores (skipped: redis-server not found (apt-get install redis-server)) (2 tests)",
      "  test/b.test.ts: outer › plain skip",
      "  test/b.test.ts: later",
    ]);
    // a run filtered with -t skips every test it did not select: only the reasoned skips are listed
    expect(Reporter.skipReasons("/r", results, true)).toEqual([
      "  test/a.test.ts: the Redis stores (skipped: redis-server not found (apt-get install redis-server)) (2 tests)",
    ]);
  });
});

describe("MNOTE_HERMES_SRC's default", () => {
  function layout(withHermes: boolean) {
    const root = tempDir("mnote-layout-");
    const clone = join(root, "clone");
    mkdirSync(clone);
    if (withHermes) {
      const hermes = join(root, "shared", "hermes-agent-v0.18.0");
      mkdirSync(join(hermes, "hermes_cli"), { recursive: true });
      writeFileSync(join(hermes, "hermes_cli", "plugins.py"), "");
      writeFileSync(join(hermes, "model_tools.py"), "");
    }
    return { root, clone };
  }

  it("is shared/hermes-agent-v0.18.0 beside the clone when it is there", () => {
    const { root, clone } = layout(true);
    expect(defaultHermesSrc({}, clone)).toBe(join(root, "shared", "hermes-agent-v0.18.0"));
  });
  it("follows MNOTE_SHARED_DIR, and never overrides a MNOTE_HERMES_SRC that is set", () => {
    const { root } = layout(true);
    const elsewhere = layout(false).clone;
    expect(defaultHermesSrc({ MNOTE_SHARED_DIR: join(root, "shared") }, elsewhere)).toBe(
      join(root, "shared", "hermes-agent-v0.18.0"),
    );
    expect(defaultHermesSrc({ MNOTE_HERMES_SRC: "/x" }, layout(true).clone)).toBeUndefined();
  });
  it("is unset (the suites skip with the reason) when nothing is beside the clone", () => {
    expect(defaultHermesSrc({}, layout(false).clone)).toBeUndefined();
  });
});

describe("MNOTE_HERMES_NEXT_SRC's and MNOTE_HERMES_STANDINS' defaults", () => {
  it("are shared/hermes-agent-v0.21 and the stand-ins beside it when there; never override what is set", () => {
    const root = tempDir("mnote-layout-");
    const clone = join(root, "clone");
    mkdirSync(clone);
    expect(defaultHermesNext({}, clone)).toEqual({ src: undefined, standins: undefined });
    const next = join(root, "shared", "hermes-agent-v0.21");
    mkdirSync(join(next, "hermes_cli"), { recursive: true });
    writeFileSync(join(next, "hermes_cli", "plugins.py"), "");
    writeFileSync(join(next, "model_tools.py"), "");
    const standins = join(root, "shared", "hermes-agent-v0.21-standins");
    mkdirSync(standins);
    writeFileSync(join(standins, "shim_boot.py"), "");
    expect(defaultHermesNext({}, clone)).toEqual({ src: next, standins });
    expect(defaultHermesNext({ MNOTE_HERMES_NEXT_SRC: "/x", MNOTE_HERMES_STANDINS: "/y" }, clone)).toEqual({
      src: undefined,
      standins: undefined,
    });
  });
});
