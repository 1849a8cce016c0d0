// Writes Jest's own totals to a JSON file, so .ci/run can print "N passed, N failed" from them.
const { mkdirSync, writeFileSync } = require("node:fs");
const { dirname, resolve } = require("node:path");

class SummaryReporter {
  constructor(globalConfig, options) {
    this.output = resolve(globalConfig.rootDir, (options && options.output) || "test-results/summary.json");
  }
  onRunComplete(_contexts, results) {
    mkdirSync(dirname(this.output), { recursive: true });
    // Jest sets results.success only after the reporters have run (it is still false here), so
    // success is worked out from the same facts Jest uses: no failed test, no suite that failed
    // to run, no snapshot failure, no error of the run itself.
    const success =
      results.numFailedTests === 0 &&
      results.numRuntimeErrorTestSuites === 0 &&
      !(results.snapshot && results.snapshot.failure) &&
      !results.runExecError &&
      !results.wasInterrupted;
    writeFileSync(
      this.output,
      JSON.stringify({
        passed: results.numPassedTests,
        failed: results.numFailedTests,
        skipped: results.numPendingTests + results.numTodoTests,
        suitesFailed: results.numFailedTestSuites,
        runtimeErrorSuites: results.numRuntimeErrorTestSuites,
        success,
      }) + "\n",
    );
  }
}
module.exports = SummaryReporter;
