#!/usr/bin/env bash
# CI: compare the working contract/ with the newest release in contract-releases/ (or with the
# base given as --base). Exit 0: no breaking change, or a new major version; 1: breaking changes
# need a new major version; 2: the contracts cannot be compared (invalid, missing, not built); 3: the
# ignore file or the severity file (contract-releases/diff-rules.json) does not match its schema.
set -uo pipefail
cd "$(dirname "$0")/.."
node bin/mnote-tools.js diff "$@"
exit $?
