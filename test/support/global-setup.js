// Jest's global setup: the services some suites need, started once per run (see redis-server.js).
"use strict";
const { globalSetup } = require("./redis-server");

module.exports = globalSetup;
