// Jest's global setup: the services some suites need, started once per run (see redis-server.js),
// the allow-all approval policy the suites' processes run under (see approval-setup.js), and
// MNOTE_HERMES_SRC's default from the shared folder beside the clone (see hermes-setup.js), and a
// private per-run cache folder (see cache-setup.js).
"use strict";
const { globalSetup } = require("./redis-server");
const { approvalSetup } = require("./approval-setup");
const { hermesSetup } = require("./hermes-setup");
const { cacheSetup } = require("./cache-setup");

module.exports = async (...args) => {
  approvalSetup();
  // most suites test other rules with loops of writes from one session: their processes count no
  // budgets (as they run under the allow-all approval policy); the budget suites remove the variable
  process.env.MNOTE_BUDGETS = "off";
  hermesSetup();
  cacheSetup();
  return globalSetup(...args);
};
