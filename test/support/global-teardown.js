// Jest's global teardown: stops what global-setup.js started.
"use strict";
const { globalTeardown } = require("./redis-server");

module.exports = globalTeardown;
