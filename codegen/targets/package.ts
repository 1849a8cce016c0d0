/**
 * generated/ as a package of its own, for plugin authors: the types, validators, registry and
 * kernel client with no runtime dependency. This target writes the package's manifest, its build
 * configuration, its ESM entry and its README; `npm run build` compiles the TypeScript files
 * beside them to dist/cjs (gitignored, never checked for drift).
 *
 * One compiled copy, two entries: `require` gets dist/cjs, `import` gets esm/index.mjs, which
 * re-exports dist/cjs (Node's "ESM wrapper" for dual packages). So an ESM and a CJS consumer in one
 * program share one module instance (`instanceof KernelRefusal` holds across both), and the
 * package ships no source twice. The version is the contract's version: the package is the contract.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Target } from "./target";
import { banner, bannerText } from "../support/banner";
import { assetsDir } from "../support/templates";

export type PackageOptions = {
  /** The npm name of the package (default @mnote/contract). */
  name?: string;
  /** The license field of its package.json (default MIT). */
  license?: string;
  /** Who the MIT LICENSE file names as copyright holder (default: the mnote-tools authors). */
  copyright?: string;
};

/**
 * @langchain/core ships CommonJS and ESM declarations, two type trees: the CommonJS build's
 * declarations resolve the CommonJS one, which an ESM program's own imports never see, so its
 * DynamicStructuredTool would not be the tools' (issue 29). What names the framework's types is
 * declared again in the ESM entry's declarations, where it resolves under "import" (a local export
 * shadows the re-exported one).
 */
const LANGCHAIN_ESM_TYPES = `// What names @langchain/core's types, declared again where they resolve under "import": an ESM
// program and these tools then share the framework's one ESM type tree.
import type { DynamicStructuredTool } from "@langchain/core/tools";
import type { MnoteLangChainOptions } from "../dist/cjs/langchain/index.js";
export declare function mnoteTools(options: MnoteLangChainOptions): DynamicStructuredTool[];
`;

/**
 * The agent-framework targets: each is a subpath of the package (`<name>/ai-sdk`, ...) whose
 * framework is an optional peer dependency (a program that imports the subpath has it installed;
 * one that does not never loads it). The ranges are the majors the targets are written against.
 */
export const FRAMEWORK_SUBPATHS: readonly {
  target: string;
  peers: Readonly<Record<string, string>>;
  /** Declarations the subpath's ESM types add over the CommonJS build's (see LANGCHAIN_ESM_TYPES). */
  esmTypes?: string;
}[] = [
  { target: "ai-sdk", peers: { ai: "^7.0.0" } },
  { target: "langchain", peers: { "@langchain/core": "^1.4.0" }, esmTypes: LANGCHAIN_ESM_TYPES },
  { target: "openai-agents", peers: { "@openai/agents": ">=0.20.0 <1.0.0" } },
];

/** The folder (inside the output folder) the package's compiled CommonJS goes to. */
export const PACKAGE_BUILD_DIR = "dist/cjs";

export const packageTarget: Target<PackageOptions> = {
  name: "package",
  needs: ["index", "types", "validators", "registry"],
  options: {
    type: "object",
    additionalProperties: false,
    properties: {
      name: {
        type: "string",
        pattern: "^(@[a-z0-9][a-z0-9._-]*/)?[a-z0-9][a-z0-9._-]*$",
        default: "@mnote/contract",
        description: "the npm name of the package",
      },
      license: {
        type: "string",
        minLength: 1,
        default: "MIT",
        description: "the license field of its package.json; with MIT the package also gets a LICENSE file",
      },
      copyright: {
        type: "string",
        minLength: 1,
        default: "the mnote-tools authors",
        description: "the copyright holder the MIT LICENSE file names",
      },
    },
  },
  emit(model, context) {
    const name = context.options.name ?? "@mnote/contract";
    const license = context.options.license ?? "MIT";
    const copyright = context.options.copyright ?? "the mnote-tools authors";
    const has = (target: string) => context.targets.includes(target);
    const cjs = `./${PACKAGE_BUILD_DIR}`;
    const frameworks = FRAMEWORK_SUBPATHS.filter((f) => has(f.target));
    // the trace context is passed on through @opentelemetry/api when the program has it
    const peers: Record<string, string> = Object.assign(
      {},
      ...frameworks.map((f) => f.peers),
      frameworks.length ? { "@opentelemetry/api": "^1.9.0" } : {},
    );
    const peerNames = Object.keys(peers).sort();
    const manifest = {
      "//": bannerText(model),
      name,
      version: model.version,
      description: `Types, validators, tool registry${has("kernel-client") ? " and kernel client" : ""} of the ${model.name} contract (generated; no runtime dependencies).`,
      license,
      type: "commonjs",
      engines: { node: ">=22" },
      sideEffects: false,
      main: `${cjs}/index.js`,
      types: `${cjs}/index.d.ts`,
      exports: {
        ".": {
          import: { types: "./esm/index.d.mts", default: "./esm/index.mjs" },
          require: { types: `${cjs}/index.d.ts`, default: `${cjs}/index.js` },
        },
        ...Object.fromEntries(
          frameworks.map((f) => [
            `./${f.target}`,
            {
              import: { types: `./esm/${f.target}.d.mts`, default: `./esm/${f.target}.mjs` },
              require: { types: `${cjs}/${f.target}/index.d.ts`, default: `${cjs}/${f.target}/index.js` },
            },
          ]),
        ),
        ...(has("manifest") ? { "./contract-manifest.json": "./contract-manifest.json" } : {}),
        "./package.json": "./package.json",
      },
      ...(peerNames.length
        ? {
            peerDependencies: Object.fromEntries(peerNames.map((n) => [n, peers[n]])),
            peerDependenciesMeta: Object.fromEntries(peerNames.map((n) => [n, { optional: true }])),
          }
        : {}),
      files: [
        `${PACKAGE_BUILD_DIR}/**/*.js`,
        `${PACKAGE_BUILD_DIR}/**/*.d.ts`,
        "esm/",
        ...(has("manifest") ? ["contract-manifest.json"] : []),
      ],
    };
    const tsconfig = {
      compilerOptions: {
        target: "ES2022",
        lib: ["ES2023", "ES2024.String"],
        module: "commonjs",
        moduleResolution: "node",
        types: ["node"],
        strict: true,
        skipLibCheck: true,
        declaration: true,
        sourceMap: false,
        rootDir: ".",
        outDir: PACKAGE_BUILD_DIR,
      },
      include: ["**/*.ts"],
      exclude: ["dist", "node_modules"],
    };
    const esmEntry = `${banner(model, "ts")}// Node's ESM wrapper: the named exports of the one CommonJS build, so ESM and CJS share one instance.
export * from "../${PACKAGE_BUILD_DIR}/index.js";
`;
    const readme = `${banner(model, "md")}
# ${name}

The ${model.name} contract ${model.version} as code, for plugin authors: TypeScript types, precompiled
validators (type guards), the tool registry${has("kernel-client") ? " and a typed kernel client" : ""}. No runtime dependencies; Node 22 or newer.
The package's version is the contract's version.

Not on the npm registry yet (\`npm install ${name}\` answers 404): make the tarball in a clone of
mnote-tools with \`npm run tarballs\`, then install the file:

\`\`\`sh
npm install /path/to/mnote-tools/${name.replace(/^@/, "").replace("/", "-")}-${model.version}.tgz
\`\`\`

\`\`\`ts
import type { PageSaveArgs } from "${name}";
import { validateToolResponse, tools } from "${name}";      // ESM (import) and CommonJS (require) alike
\`\`\`
${
  frameworks.length
    ? `
The tools for agent frameworks are subpaths, each needing its framework (an optional peer):
${frameworks
  .map(
    (f) =>
      `\`${name}/${f.target}\` (${Object.entries(f.peers)
        .map(([p, range]) => `\`${p}\` ${range}`)
        .join(", ")})`,
  )
  .join(", ")}.
Each exports \`mnoteTools({ connection, session })\`, the framework's own tool objects.
`
    : ""
}`;
    return [
      { path: "package.json", content: JSON.stringify(manifest, null, 2) + "\n" },
      { path: "tsconfig.build.json", content: `${banner(model, "ts")}${JSON.stringify(tsconfig, null, 2)}\n` },
      { path: "esm/index.mjs", content: esmEntry },
      { path: "esm/index.d.mts", content: esmEntry },
      ...frameworks.flatMap((f) => {
        const entry = `${banner(model, "ts")}// Node's ESM wrapper of the ${f.target} subpath (its one CommonJS build).
export * from "../${PACKAGE_BUILD_DIR}/${f.target}/index.js";
`;
        return [
          { path: `esm/${f.target}.mjs`, content: entry },
          { path: `esm/${f.target}.d.mts`, content: entry + (f.esmTypes ?? "") },
        ];
      }),
      { path: "README.md", content: readme },
      // npm ships a LICENSE file with any package; the text exists here for MIT, the default
      ...(license === "MIT" ? [{ path: "LICENSE", content: `${bannerText(model)}\n\n${mitLicense(copyright)}` }] : []),
    ];
  },
};

/** The MIT license text (codegen/assets/package/MIT-LICENSE.txt, the same as the repository's LICENSE) naming the holder. */
function mitLicense(copyright: string): string {
  return readFileSync(join(assetsDir("package"), "MIT-LICENSE.txt"), "utf8").replace("{copyright}", copyright);
}
