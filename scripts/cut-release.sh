#!/usr/bin/env bash
# Cut a contract release: copy contract/ to contract-releases/<version>/, where `mnote-tools diff`
# finds the newest one as its default base. A release is never overwritten, and the version must
# be the one contract/contract.json states and newer than every earlier release, so the folder
# name and the contract inside it cannot disagree.
#
#   scripts/cut-release.sh 1.1.0
set -euo pipefail
cd "$(dirname "$0")/.."

if [ $# -ne 1 ]; then
  echo "usage: scripts/cut-release.sh <version>   (the version in contract/contract.json)" >&2
  exit 2
fi
version="$1"
semver='^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(-[0-9A-Za-z.-]+)?$'
if ! [[ "$version" =~ $semver ]]; then
  echo "not a semantic version: $version" >&2
  exit 2
fi

stated="$(node -p 'require("./contract/contract.json").version')"
if [ "$stated" != "$version" ]; then
  echo "contract/contract.json says version $stated, not $version: set the version there first" >&2
  exit 1
fi

target="contract-releases/$version"
if [ -e "$target" ]; then
  echo "$target already exists: a released contract is never overwritten" >&2
  exit 1
fi

# The same precedence as diff/load/version.ts: numeric parts, then a release after its prereleases.
newest="$(node -e '
  const fs = require("fs");
  const re = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-([0-9A-Za-z.-]+))?$/;
  const key = (v) => { const m = re.exec(v); return m && [+m[1], +m[2], +m[3], m[4] ?? ""]; };
  const cmp = (a, b) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2] ||
    (a[3] === b[3] ? 0 : a[3] === "" ? 1 : b[3] === "" ? -1 : a[3] < b[3] ? -1 : 1);
  const dir = "contract-releases";
  const names = fs.existsSync(dir) ? fs.readdirSync(dir).filter((n) => key(n) && fs.statSync(dir + "/" + n).isDirectory()) : [];
  names.sort((a, b) => cmp(key(a), key(b)));
  const newest = names[names.length - 1];
  if (newest && cmp(key(process.argv[1]), key(newest)) <= 0) console.log(newest);
' "$version")"
if [ -n "$newest" ]; then
  echo "contract-releases/$newest is newer than or equal to $version: a release must be newer than the last one" >&2
  exit 1
fi

mkdir -p contract-releases
# Copied under a name diff ignores, then renamed: an interrupted cut leaves no half release.
staging="contract-releases/.staging-$version-$$"
mkdir "$staging"
trap 'rm -rf "$staging"' EXIT
cp -R contract/. "$staging/"
mv "$staging" "$target"
trap - EXIT
echo "released contract $version to $target"
