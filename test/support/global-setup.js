// Jest's global setup: the services some suites need, started once per run (see redis-server.js),
// and the allow-all approval policy the suites' processes run under (see approval-setup.js).
"use strict";
const { globalSetup } = require("./redis-server");
const { approvalSetup } = require("./approval-setup");

module.exports = async (...args) => {
  approvalSetup();
  return globalSetup(...args);
};
