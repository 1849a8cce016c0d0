// Writes Jest's own totals to a JSON file, so .ci/run can print "N passed, N failed" from them, and
// prints why each skipped test was skipped under Jest's summary. The suites name their reason in
// the skipped test's or describe's title ("skipped: redis-server not found (apt-get install
// redis-server)"), which Jest itself shows only with --verbose, and never for a whole skipped suite.
// MNOTE_TEST_SUMMARY overrides the file (.ci/run's second run on Node 24 writes its own).
"use strict";
const { mkdirSync, writeFileSync } = require("node:fs");
const { dirname, relative, resolve } = require("node:path");

const SKIPPED = new Set(["pending", "skipped", "todo", "disabled"]);

/**
 * One line per skip reason and file: the first title (describe or test) that says why, else the
 * test's name. With onlyReasoned (a run filtered by -t, which skips every test it did not select),
 * only the skips that name a reason.
 */
function skipReasons(rootDir, results, onlyReasoned = false) {
  const lines = [];
  for (const file of results.testResults) {
    const counts = new Map();
    for (const test of file.testResults) {
      if (!SKIPPED.has(test.status)) continue;
      const titles = [...test.ancestorTitles, test.title];
      const said = titles.find((t) => /\bskipped\b/i.test(t));
      if (!said && onlyReasoned) continue;
      const reason = said ?? titles.join(" › ");
      counts.set(reason, (counts.get(reason) ?? 0) + 1);
    }
    const where = relative(rootDir, file.testFilePath);
    for (const [reason, n] of counts) lines.push(`  ${where}: ${reason}${n > 1 ? ` (${n} tests)` : ""}`);
  }
  return lines;
}

class SummaryReporter {
  constructor(globalConfig, options) {
    this.rootDir = globalConfig.rootDir;
    this.filtered = Boolean(globalConfig.testNamePattern);
    const output = process.env.MNOTE_TEST_SUMMARY || (options && options.output) || "test-results/summary.json";
    this.output = resolve(globalConfig.rootDir, output);
  }
  onRunComplete(_contexts, results) {
    const reasons = skipReasons(this.rootDir, results, this.filtered);
    if (reasons.length > 0) process.stderr.write(`Skipped, and why:\n${reasons.join("\n")}\n`);
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
SummaryReporter.skipReasons = skipReasons;
module.exports = SummaryReporter;
