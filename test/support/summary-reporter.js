// Writes Jest's own totals to a JSON file, so .ci/run can print "N passed, N failed" from them.
const { mkdirSync, writeFileSync } = require("node:fs");
const { dirname, resolve } = require("node:path");

class SummaryReporter {
  constructor(globalConfig, options) {
    this.output = resolve(globalConfig.rootDir, (options && options.output) || "test-results/summary.json");
  }
  onRunComplete(_contexts, results) {
    mkdirSync(dirname(this.output), { recursive: true });
    writeFileSync(
      this.output,
      JSON.stringify({
        passed: results.numPassedTests,
        failed: results.numFailedTests,
        skipped: results.numPendingTests + results.numTodoTests,
        suitesFailed: results.numFailedTestSuites,
        runtimeErrorSuites: results.numRuntimeErrorTestSuites,
        success: results.success,
      }) + "\n",
    );
  }
}
module.exports = SummaryReporter;
