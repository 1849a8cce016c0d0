/** @type {import('jest').Config} */
module.exports = {
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
