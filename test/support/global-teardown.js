// Jest's global teardown: stops what global-setup.js started.
"use strict";
const { globalTeardown } = require("./redis-server");
const { cacheTeardown } = require("./cache-setup");

module.exports = async (...args) => {
  cacheTeardown();
  return globalTeardown(...args);
};
