/**
 * A module `@mnote/runtime` declares as an optional peer (docs/PACKAGES.md), loaded on demand: npm
 * installs no optional peer, so the program that needs one installs it. Missing, it is a clear
 * error naming what needed it and the install line, instead of Node's "Cannot find module".
 * The CLI (`mnote-tools`) depends on every such peer, so this is about a program that embeds the
 * runtime on a lean install.
 */

/** An optional peer the program needs and has not installed. */
export class MissingPeerError extends Error {
  constructor(
    readonly packages: readonly string[],
    neededFor: string,
    cause: unknown,
  ) {
    const what = packages.join(" and ");
    super(
      `${neededFor} needs ${what}, ${packages.length > 1 ? "optional peers" : "an optional peer"} of @mnote/runtime that this program has not installed: npm install ${packages.join(" ")}`,
      { cause },
    );
    this.name = "MissingPeerError";
  }
}

/** Whether `error` is Node's failure to find `specifier` itself (not a module that one loads). */
export function isMissingModule(error: unknown, specifier: string): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  return (
    code === "MODULE_NOT_FOUND" &&
    typeof message === "string" &&
    message.startsWith(`Cannot find module '${specifier}'`)
  );
}

/**
 * `load()` (a `require` of `specifier`, written at the call site so it resolves from there), or a
 * MissingPeerError when `specifier` is not installed. Any other failure is thrown as it is.
 */
export function loadPeer<T>(specifier: string, packages: readonly string[], neededFor: string, load: () => T): T {
  try {
    return load();
  } catch (e) {
    if (isMissingModule(e, specifier)) throw new MissingPeerError(packages, neededFor, e);
    throw e;
  }
}
