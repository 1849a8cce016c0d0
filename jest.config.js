/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: "node",
  roots: ["<rootDir>/test"],
  testMatch: ["**/*.test.ts"],
  transform: { "^.+\\.ts$": ["ts-jest", { tsconfig: "tsconfig.test.json" }] },
  moduleFileExtensions: ["ts", "js", "json"],
  testTimeout: 120000,
  // the summary line .ci/run prints is read from this file
  reporters: ["default", ["<rootDir>/test/support/summary-reporter.js", { output: "test-results/summary.json" }]],
};
