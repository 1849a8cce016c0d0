/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: "node",
  roots: ["<rootDir>/test"],
  testMatch: ["**/*.test.ts"],
  transform: { "^.+\\.ts$": ["ts-jest", { tsconfig: "tsconfig.test.json" }] },
  moduleFileExtensions: ["ts", "js", "json"],
  testTimeout: 120000,
  // a private redis-server for the suites that need Redis, unless MNOTE_TEST_REDIS_PORT names one
  globalSetup: "<rootDir>/test/support/global-setup.js",
  globalTeardown: "<rootDir>/test/support/global-teardown.js",
  // the summary line .ci/run prints is read from this file
  reporters: ["default", ["<rootDir>/test/support/summary-reporter.js", { output: "test-results/summary.json" }]],
};
