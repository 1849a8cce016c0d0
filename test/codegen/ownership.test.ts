/**
 * generate owns only what it wrote: output folders lie inside the project and outside the
 * contract and .git (real paths, so symlinks cannot smuggle them out); a file generate did not
 * write is never deleted or overwritten; every emitted path stays inside its folder; two targets
 * claiming one path is a config error naming both. Each refusal is checked through generate AND
 * generate --check (they must agree), and against the disk: the whole folder around the project
 * is hashed before and after, so a write that escaped the project would show. (The generator runs
 * as a subprocess: json-schema-to-typescript's prettier import fails inside Jest.)
 */
import {
  cpSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { contractDir, generatedDir, runCli as runCliOnce } from "../support/paths";
import { tempDir } from "../support/tmp";
import { treeState } from "../support/tree";
import { TARGETS } from "../../codegen/phases/emit";

jest.setTimeout(900_000);

/** The generator as a subprocess, with a wide timeout: CI has 2 loaded cores. */
const runCli = (args: readonly string[], cwd: string) => runCliOnce(args, { cwd, timeoutMs: 300_000 });

const BUILT_IN = TARGETS.map((t) => t.name);

/** A target module that emits the paths its options name, as an outside plugin would. */
const emitterModule = (name: string) => `
module.exports = {
  name: ${JSON.stringify(name)},
  options: {
    type: "object",
    additionalProperties: false,
    properties: { paths: { type: "array", items: { type: "string" }, default: ["list.txt"] } },
  },
  emit(model, context) {
    return context.options.paths.map((path) => ({ path, content: "emitted by ${name}\\n" }));
  },
};
`;

interface Sandbox {
  /** A folder of its own around the project: anything that escapes the project lands here. */
  wrapper: string;
  root: string;
}

/** wrapper/project with contract/, generated/ (without its package build) and two emitter modules. */
function sandbox(): Sandbox {
  // real path: the generator names folders by their real paths (a temp folder may be behind a symlink)
  const wrapper = realpathSync(tempDir("mnote-own-"));
  const root = join(wrapper, "project");
  cpSync(contractDir, join(root, "contract"), { recursive: true });
  cpSync(generatedDir, join(root, "generated"), {
    recursive: true,
    filter: (src) => !/[/\\]generated[/\\](dist|node_modules)$/.test(src),
  });
  writeFileSync(join(root, "emitter-a.js"), emitterModule("emitter-a"));
  writeFileSync(join(root, "emitter-b.js"), emitterModule("emitter-b"));
  mkdirSync(join(wrapper, "elsewhere"));
  writeFileSync(join(wrapper, "elsewhere", "keep.txt"), "someone else's file\n");
  writeFileSync(join(wrapper, "victim.txt"), "outside the project\n");
  return { wrapper, root };
}

function writeConfig(root: string, config: unknown): void {
  writeFileSync(join(root, "mnote-tools.config.json"), JSON.stringify(config, null, 2));
}

/** One emitter into lists/, emitting exactly `paths`. */
const emitting = (...paths: string[]) => ({
  targets: [{ module: "./emitter-a.js", out: "lists", options: { paths } }],
});

interface Refusal {
  /** Prepares the project: writes the config, makes folders, links, files. */
  setup(box: Sandbox): void;
  /** What stderr must contain (besides "invalid config: "). */
  message: (box: Sandbox) => string;
  /** Extra arguments of both runs. */
  args?: (box: Sandbox) => string[];
}

const REFUSALS: Record<string, Refusal> = {
  ".git as the output folder": {
    setup: ({ root }) => {
      mkdirSync(join(root, ".git"));
      writeFileSync(join(root, ".git", "HEAD"), "ref: refs/heads/main\n");
      writeConfig(root, { out: ".git" });
    },
    message: () => "is inside a .git folder",
  },
  "a folder inside .git": {
    setup: ({ root }) => {
      mkdirSync(join(root, ".git", "hooks"), { recursive: true });
      writeConfig(root, { targets: ["docs"], out: ".git/hooks" });
    },
    message: () => "is inside a .git folder",
  },
  "a folder that is a repository of its own": {
    setup: ({ root }) => {
      mkdirSync(join(root, "vendor", ".git"), { recursive: true });
      writeFileSync(join(root, "vendor", ".git", "HEAD"), "ref: refs/heads/main\n");
      writeConfig(root, { targets: ["docs"], out: "vendor" });
    },
    message: () => "holds a .git",
  },
  "a symlink that leads into .git": {
    setup: ({ root }) => {
      mkdirSync(join(root, ".git"));
      symlinkSync(join(root, ".git"), join(root, "git-link"));
      writeConfig(root, { targets: ["docs"], out: "git-link/docs" });
    },
    message: () => "is inside a .git folder",
  },
  "contract/tools as the output folder": {
    setup: ({ root }) => writeConfig(root, { targets: ["docs"], out: "contract/tools" }),
    message: ({ root }) => `is inside the contract folder ${join(root, "contract")}`,
  },
  "a folder of hand-written files": {
    setup: ({ root }) => {
      mkdirSync(join(root, "src", "lib"), { recursive: true });
      writeFileSync(join(root, "src", "main.ts"), "export const main = 1;\n");
      writeFileSync(join(root, "src", "lib", "util.ts"), "export const util = 2;\n");
      writeConfig(root, { targets: ["docs"], out: "src" });
    },
    message: () =>
      "output folder src holds files generate did not write (no generated banner): src/lib/util.ts, src/main.ts",
  },
  "an output folder outside the project, by ..": {
    setup: ({ root }) => writeConfig(root, { targets: ["docs"], out: "../elsewhere" }),
    message: ({ wrapper }) => `output folder ${join(wrapper, "elsewhere")} is outside the project`,
  },
  "an output folder outside the project, by an absolute path": {
    setup: ({ root, wrapper }) => writeConfig(root, { targets: ["docs"], out: join(wrapper, "elsewhere") }),
    message: () => "is outside the project",
  },
  "an output folder outside the project, through a symlink": {
    setup: ({ root, wrapper }) => {
      symlinkSync(join(wrapper, "elsewhere"), join(root, "link"));
      writeConfig(root, { targets: ["docs"], out: "link" });
    },
    message: ({ root, wrapper }) =>
      `output folder ${join(root, "link")} (really ${join(wrapper, "elsewhere")}) is outside the project`,
  },
  "a folder below a symlink that leads outside the project": {
    setup: ({ root, wrapper }) => {
      symlinkSync(join(wrapper, "elsewhere"), join(root, "link"));
      writeConfig(root, { targets: ["docs"], out: "link/fresh" });
    },
    message: () => "is outside the project",
  },
  "--out outside the working directory, without a config": {
    setup: () => undefined,
    args: () => ["--out", "../elsewhere"],
    message: () => "is outside the project",
  },
  "a file generate did not write, in generated/": {
    setup: ({ root }) => writeFileSync(join(root, "generated", "docs", "NOTES.md"), "my notes\n"),
    message: () =>
      "output folder generated holds a file generate did not write (not on its list generated/.mnote-generated): generated/docs/NOTES.md",
  },
  "a symlink in generated/": {
    setup: ({ root, wrapper }) =>
      symlinkSync(join(wrapper, "victim.txt"), join(root, "generated", "docs", "errors2.md")),
    message: () => "generated/docs/errors2.md (a symlink)",
  },
  "a list that names a path outside its folder": {
    setup: ({ root }) => {
      const list = join(root, "generated", ".mnote-generated");
      writeFileSync(list, readFileSync(list, "utf8") + "../../victim.txt\n");
    },
    message: () => "generated/.mnote-generated line",
  },
  "a target emitting ../x": {
    setup: ({ root }) => writeConfig(root, emitting("../x")),
    message: () => 'target emitter-a emits the path "../x": a path must not have a ".." segment',
  },
  "a target emitting a/../../b": {
    setup: ({ root }) => writeConfig(root, emitting("a/../../b")),
    message: () => 'target emitter-a emits the path "a/../../b"',
  },
  "a target emitting ../../victim.txt": {
    setup: ({ root }) => writeConfig(root, emitting("../../victim.txt")),
    message: () => 'target emitter-a emits the path "../../victim.txt"',
  },
  "a target emitting an absolute path": {
    setup: ({ root, wrapper }) => writeConfig(root, emitting(join(wrapper, "abs.txt"))),
    message: ({ wrapper }) => `target emitter-a emits the path "${join(wrapper, "abs.txt")}": a path must be relative`,
  },
  "a target emitting a drive letter": {
    setup: ({ root }) => writeConfig(root, emitting("C:/x.txt")),
    message: () => "a path must not start with a drive letter",
  },
  "a target emitting a backslash": {
    setup: ({ root }) => writeConfig(root, emitting("a\\..\\..\\x")),
    message: () => "a path uses forward slashes",
  },
  "a target emitting NUL": {
    setup: ({ root }) => writeConfig(root, emitting("a\u0000b")),
    message: () => "a path must not hold a control character",
  },
  "a target emitting an empty path": {
    setup: ({ root }) => writeConfig(root, emitting("")),
    message: () => 'target emitter-a emits the path "": a path must not be empty',
  },
  "a target emitting into .git": {
    setup: ({ root }) => writeConfig(root, emitting("sub/.git/config")),
    message: () => "a path must not name a .git folder",
  },
  "a target emitting generate's own list": {
    setup: ({ root }) => writeConfig(root, emitting(".mnote-generated")),
    message: () => "is generate's own list",
  },
  "two outside targets writing one path": {
    setup: ({ root }) =>
      writeConfig(root, {
        targets: [
          { module: "./emitter-a.js", out: "lists", options: { paths: ["same.txt"] } },
          { module: "./emitter-b.js", out: "lists", options: { paths: ["same.txt"] } },
        ],
      }),
    message: () => "targets emitter-a and emitter-b both write same.txt",
  },
  "an outside target writing a built-in target's file": {
    setup: ({ root }) =>
      writeConfig(root, { targets: [...BUILT_IN, { module: "./emitter-a.js", options: { paths: ["types.ts"] } }] }),
    message: () => "targets types and emitter-a both write types.ts",
  },
  "a target writing a file where another writes a folder": {
    setup: ({ root }) =>
      writeConfig(root, { targets: ["docs", { module: "./emitter-a.js", options: { paths: ["docs"] } }] }),
    message: () => "target emitter-a writes the file docs and target docs writes docs/",
  },
};

describe("generate owns only what it wrote", () => {
  it.each(Object.keys(REFUSALS))(
    "refuses %s: exit 3 from generate and --check alike, nothing on disk changed",
    (name) => {
      const refusal = REFUSALS[name]!;
      const box = sandbox();
      refusal.setup(box);
      const before = treeState(box.wrapper);
      const args = refusal.args?.(box) ?? [];
      for (const mode of [[], ["--check"]]) {
        const run = runCli(["generate", ...args, ...mode], box.root);
        expect(run.stderr).toContain("invalid config: ");
        expect(run.stderr).toContain(refusal.message(box));
        expect(run.stderr).not.toMatch(/\n\s+at /); // a message, not a stack trace
        expect(run.status).toBe(3);
        expect(treeState(box.wrapper)).toEqual(before);
      }
    },
  );

  it("the first run into a fresh folder writes the files and their list; --check agrees", () => {
    const box = sandbox();
    writeConfig(box.root, emitting("one.txt", "sub/two.txt"));
    const run = runCli(["generate", "--quiet"], box.root);
    expect(run.stderr).toBe("");
    expect(run.status).toBe(0);
    expect(readFileSync(join(box.root, "lists", "sub", "two.txt"), "utf8")).toBe("emitted by emitter-a\n");
    const list = readFileSync(join(box.root, "lists", ".mnote-generated"), "utf8");
    expect(list.split("\n\n")[1]).toBe("one.txt\nsub/two.txt\n");
    expect(runCli(["generate", "--check", "--quiet"], box.root).status).toBe(0);
  });

  it("a rerun replaces its own files, deletes its stale ones, and keeps dist/, caches and their folders", () => {
    const box = sandbox();
    const lists = join(box.root, "lists");
    writeConfig(box.root, emitting("a/one.txt", "b/gone.txt", "two.txt"));
    expect(runCli(["generate", "--quiet"], box.root).status).toBe(0);
    mkdirSync(join(lists, "dist"));
    writeFileSync(join(lists, "dist", "built.js"), "built\n");
    mkdirSync(join(lists, "b", "__pycache__"));
    writeFileSync(join(lists, "b", "__pycache__", "gone.pyc"), "cache\n");

    // a/one.txt gives way to a file named a; b/gone.txt goes, b stays for its cache
    writeConfig(box.root, emitting("a", "two.txt", "three.txt"));
    const check = runCli(["generate", "--check"], box.root);
    expect(check.status).toBe(1);
    expect(check.stderr).toContain("extra: lists/a/one.txt (the generator no longer writes it)");
    expect(check.stderr).toContain("missing: lists/three.txt");
    const run = runCli(["generate", "--quiet"], box.root);
    expect(run.stderr).toBe("");
    expect(run.status).toBe(0);
    const state = treeState(lists);
    expect(Object.keys(state).sort()).toEqual([
      ".mnote-generated",
      "a",
      "b",
      "b/__pycache__",
      "b/__pycache__/gone.pyc",
      "dist",
      "dist/built.js",
      "three.txt",
      "two.txt",
    ]);
    expect(runCli(["generate", "--check", "--quiet"], box.root).status).toBe(0);
    // no staging or retired folder is left beside it
    expect(readdirSync(box.root).filter((n) => n.startsWith(".lists."))).toEqual([]);
  });

  it("a folder generated before the list existed is taken over by the banners its files carry", () => {
    const box = sandbox();
    rmSync(join(box.root, "generated", ".mnote-generated"));
    const check = runCli(["generate", "--check"], box.root);
    expect(check.status).toBe(1);
    expect(check.stderr).toContain("missing: generated/.mnote-generated");
    const run = runCli(["generate", "--quiet"], box.root);
    expect(run.stderr).toBe("");
    expect(run.status).toBe(0);
    expect(readFileSync(join(box.root, "generated", ".mnote-generated"), "utf8")).toBe(
      readFileSync(join(generatedDir, ".mnote-generated"), "utf8"),
    );
  });
});
