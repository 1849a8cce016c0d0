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
import type { ContractModel } from "../model";
import type { GeneratedFile, Target } from "./target";
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
    const has = (target: string) => context.targets.includes(target);
    const plan: PackagePlan = {
      name: context.options.name ?? "@mnote/contract",
      license: context.options.license ?? "MIT",
      kernelClient: has("kernel-client"),
      manifest: has("manifest"),
      frameworks: FRAMEWORK_SUBPATHS.filter((f) => has(f.target)),
    };
    const copyright = context.options.copyright ?? "the mnote-tools authors";
    const esmEntry = `${banner(model, "ts")}// Node's ESM wrapper: the named exports of the one CommonJS build, so ESM and CJS share one instance.
export * from "../${PACKAGE_BUILD_DIR}/index.js";
`;
    return [
      { path: "package.json", content: JSON.stringify(packageManifest(model, plan), null, 2) + "\n" },
      { path: "tsconfig.build.json", content: `${banner(model, "ts")}${JSON.stringify(BUILD_TSCONFIG, null, 2)}\n` },
      { path: "esm/index.mjs", content: esmEntry },
      { path: "esm/index.d.mts", content: esmEntry },
      ...plan.frameworks.flatMap((f) => frameworkEntries(model, f)),
      { path: "README.md", content: readme(model, plan) },
      // npm ships a LICENSE file with any package; the text exists here for MIT, the default
      ...(plan.license === "MIT"
        ? [{ path: "LICENSE", content: `${bannerText(model)}\n\n${mitLicense(copyright)}` }]
        : []),
    ];
  },
};

/** One agent-framework subpath of the package (an entry of FRAMEWORK_SUBPATHS). */
type FrameworkSubpath = (typeof FRAMEWORK_SUBPATHS)[number];

/** What the manifest and the README are made from: the options, defaults filled in, and the targets beside this one. */
interface PackagePlan {
  name: string;
  license: string;
  /** The kernel-client target runs beside this one (the description and README name the client). */
  kernelClient: boolean;
  /** The manifest target runs beside this one (contract-manifest.json is exported and shipped). */
  manifest: boolean;
  /** The agent-framework targets that run beside this one, each a subpath. */
  frameworks: readonly FrameworkSubpath[];
}

/** The build configuration of the package's CommonJS compile: the same for every contract. */
const BUILD_TSCONFIG = {
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

/** package.json: the package's facts, its entries (exports), its optional peers and the files it ships. */
function packageManifest(model: ContractModel, plan: PackagePlan): Record<string, unknown> {
  const cjs = `./${PACKAGE_BUILD_DIR}`;
  return {
    "//": bannerText(model),
    name: plan.name,
    version: model.version,
    description: `Types, validators, tool registry${plan.kernelClient ? " and kernel client" : ""} of the ${model.name} contract (generated; no runtime dependencies).`,
    license: plan.license,
    type: "commonjs",
    engines: { node: ">=22" },
    sideEffects: false,
    main: `${cjs}/index.js`,
    types: `${cjs}/index.d.ts`,
    exports: packageExports(plan),
    ...peerDependencies(plan.frameworks),
    files: [
      `${PACKAGE_BUILD_DIR}/**/*.js`,
      `${PACKAGE_BUILD_DIR}/**/*.d.ts`,
      "esm/",
      ...(plan.manifest ? ["contract-manifest.json"] : []),
    ],
  };
}

/** The exports map: the root entry and each framework subpath, `import` to esm/, `require` to the CommonJS build. */
function packageExports(plan: PackagePlan): Record<string, unknown> {
  const cjs = `./${PACKAGE_BUILD_DIR}`;
  return {
    ".": {
      import: { types: "./esm/index.d.mts", default: "./esm/index.mjs" },
      require: { types: `${cjs}/index.d.ts`, default: `${cjs}/index.js` },
    },
    ...Object.fromEntries(
      plan.frameworks.map((f) => [
        `./${f.target}`,
        {
          import: { types: `./esm/${f.target}.d.mts`, default: `./esm/${f.target}.mjs` },
          require: { types: `${cjs}/${f.target}/index.d.ts`, default: `${cjs}/${f.target}/index.js` },
        },
      ]),
    ),
    ...(plan.manifest ? { "./contract-manifest.json": "./contract-manifest.json" } : {}),
    "./package.json": "./package.json",
  };
}

/** The frameworks' peers, all optional (none without a framework subpath, so no empty fields). */
function peerDependencies(frameworks: readonly FrameworkSubpath[]): Record<string, unknown> {
  // the trace context is passed on through @opentelemetry/api when the program has it
  const peers: Record<string, string> = Object.assign(
    {},
    ...frameworks.map((f) => f.peers),
    frameworks.length ? { "@opentelemetry/api": "^1.9.0" } : {},
  );
  const peerNames = Object.keys(peers).sort();
  if (!peerNames.length) return {};
  return {
    peerDependencies: Object.fromEntries(peerNames.map((n) => [n, peers[n]])),
    peerDependenciesMeta: Object.fromEntries(peerNames.map((n) => [n, { optional: true }])),
  };
}

/** A framework subpath's ESM wrapper and its declarations (with the ESM-only types the subpath adds). */
function frameworkEntries(model: ContractModel, f: FrameworkSubpath): GeneratedFile[] {
  const entry = `${banner(model, "ts")}// Node's ESM wrapper of the ${f.target} subpath (its one CommonJS build).
export * from "../${PACKAGE_BUILD_DIR}/${f.target}/index.js";
`;
  return [
    { path: `esm/${f.target}.mjs`, content: entry },
    { path: `esm/${f.target}.d.mts`, content: entry + (f.esmTypes ?? "") },
  ];
}

/** README.md: what the package holds, how to install the tarball, how to import it, then the framework subpaths. */
function readme(model: ContractModel, plan: PackagePlan): string {
  const { name } = plan;
  return `${banner(model, "md")}
# ${name}

The ${model.name} contract ${model.version} as code, for plugin authors: TypeScript types, precompiled
validators (type guards), the tool registry${plan.kernelClient ? " and a typed kernel client" : ""}. No runtime dependencies; Node 22 or newer.
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
${readmeFrameworks(name, plan.frameworks)}`;
}

/** The README's paragraph on the framework subpaths and their peers (empty without any). */
function readmeFrameworks(name: string, frameworks: readonly FrameworkSubpath[]): string {
  if (!frameworks.length) return "";
  const subpaths = frameworks.map(
    (f) =>
      `\`${name}/${f.target}\` (${Object.entries(f.peers)
        .map(([p, range]) => `\`${p}\` ${range}`)
        .join(", ")})`,
  );
  return `
The tools for agent frameworks are subpaths, each needing its framework (an optional peer):
${subpaths.join(", ")}.
Each exports \`mnoteTools({ connection, session })\`, the framework's own tool objects.
`;
}

/** The MIT license text (codegen/assets/package/MIT-LICENSE.txt, the same as the repository's LICENSE) naming the holder. */
function mitLicense(copyright: string): string {
  return readFileSync(join(assetsDir("package"), "MIT-LICENSE.txt"), "utf8").replace("{copyright}", copyright);
}
