"use strict";
// `require("mnote-tools")` gives the contract package: the types, validators, registry and kernel
// client. A plugin author needs only that package (@mnote/contract); this keeps the CLI's name working.
module.exports = require("@mnote/contract");
