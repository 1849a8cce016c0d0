const { availableParallelism } = require("node:os");

/** @type {import('jest').Config} */
module.exports = {
  // at least two workers, also on 2 cores (Jest's default there is one): most suites wait on the
  // processes, servers and browsers they start, so a second worker fills the idle core. Every suite
  // owns what it touches (its Redis database, its Postgres server, its temp folders, port 0), so two
  // at once share nothing. MNOTE_JEST_WORKERS overrides (1 runs the suites one by one).
  maxWorkers: Number(process.env.MNOTE_JEST_WORKERS) || Math.max(2, availableParallelism() - 1),
  testEnvironment: "node",
  roots: ["<rootDir>/test"],
  testMatch: ["**/*.test.ts"],
  transform: {
    "^.+\\.ts$": ["ts-jest", { tsconfig: "tsconfig.test.json" }],
    // the AI SDK (ai 7 and its @ai-sdk packages) ships ESM only: turned into CommonJS for Jest's
    // module system, as any ESM-only dependency of a suite would be (ts-jest, transpile only)
    "^.+\\.m?js$": ["ts-jest", { tsconfig: "tsconfig.esm-deps.json" }],
  },
  transformIgnorePatterns: ["/node_modules/(?!(ai|@ai-sdk|@workflow|eventsource-parser|@standard-schema|zod|jose)/)"],
  moduleFileExtensions: ["ts", "js", "json"],
  testTimeout: 120000,
  // a private redis-server for the suites that need Redis, unless MNOTE_TEST_REDIS_PORT names one
  globalSetup: "<rootDir>/test/support/global-setup.js",
  globalTeardown: "<rootDir>/test/support/global-teardown.js",
  // the summary line .ci/run prints is read from this file
  reporters: ["default", ["<rootDir>/test/support/summary-reporter.js", { output: "test-results/summary.json" }]],
};
