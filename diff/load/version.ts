/**
 * The version rule: breaking changes are allowed only with a new major version. Warnings and safe
 * changes never fail.
 */
import type { Verdict } from "../types";

export interface SemVer {
  major: number;
  minor: number;
  patch: number;
  prerelease: string;
}

const SEMVER = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-([0-9A-Za-z.-]+))?$/;

export function parseVersion(version: string): SemVer | null {
  const m = SEMVER.exec(version);
  return m ? { major: Number(m[1]), minor: Number(m[2]), patch: Number(m[3]), prerelease: m[4] ?? "" } : null;
}

/** Semver precedence (prerelease identifiers compared as strings, which is enough for release folders). */
export function compareVersions(a: SemVer, b: SemVer): number {
  return (
    a.major - b.major ||
    a.minor - b.minor ||
    a.patch - b.patch ||
    (a.prerelease === b.prerelease
      ? 0
      : a.prerelease === ""
        ? 1
        : b.prerelease === ""
          ? -1
          : a.prerelease < b.prerelease
            ? -1
            : 1)
  );
}

/**
 * errors: changes whose severity is error (by default exactly the breaking ones); they need a new
 * major version. errorsAreBreaking: every error is a breaking change (the message says so).
 */
export function verdictFor(
  baseVersion: string,
  headVersion: string,
  counts: { breaking: number; warning: number; safe: number },
  errors: number = counts.breaking,
  errorsAreBreaking = true,
): Verdict {
  const base = parseVersion(baseVersion);
  const head = parseVersion(headVersion);
  if (!base || !head) throw new Error(`not a semantic version: ${base ? headVersion : baseVersion}`);
  const total = counts.breaking + counts.warning + counts.safe;
  const what = errorsAreBreaking ? "breaking change(s)" : "change(s) of severity error";
  if (errors === 0) {
    const message =
      total === 0
        ? "no changes"
        : counts.breaking === 0
          ? `no breaking changes (${counts.warning} warning, ${counts.safe} safe)`
          : `no errors (${counts.breaking} breaking change(s) below severity error, ${counts.warning} warning, ${counts.safe} safe)`;
    return { ok: true, requiredVersion: null, message };
  }
  if (head.major > base.major) {
    return {
      ok: true,
      requiredVersion: null,
      message: `${errors} ${what}, allowed by the new major version ${headVersion} (base ${baseVersion})`,
    };
  }
  const required = `${base.major + 1}.0.0`;
  return {
    ok: false,
    requiredVersion: required,
    message: `${errorsAreBreaking ? "breaking changes" : "changes of severity error"} need version ${required}: ${errors} ${what} against base ${baseVersion}, but contract.json says ${headVersion}`,
  };
}
