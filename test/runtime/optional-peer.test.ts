/**
 * An optional peer of @mnote/runtime missing (common/optional-peer.ts): Node's failure to find that
 * very module becomes a MissingPeerError naming what needed it and the install line; any other
 * failure, a module the peer itself loads among them, is thrown as it is. The installed packages'
 * side (ajv and the OpenTelemetry API absent) is test/package/packages.test.ts.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { isMissingModule, loadPeer, MissingPeerError } from "../../common/optional-peer";
import { tempDir } from "../support/tmp";

/* eslint-disable @typescript-eslint/no-require-imports -- requiring at run time is what is tested */
describe("optional peers loaded on demand", () => {
  it("a peer that is not installed is a MissingPeerError with the install line, its cause kept", () => {
    let error: unknown;
    try {
      loadPeer("mnote-no-such-peer/sub", ["mnote-no-such-peer", "its-friend"], "a feature", () =>
        require("mnote-no-such-peer/sub"),
      );
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(MissingPeerError);
    const e = error as MissingPeerError;
    expect(e.message).toBe(
      "a feature needs mnote-no-such-peer and its-friend, optional peers of @mnote/runtime that this program has not installed: npm install mnote-no-such-peer its-friend",
    );
    expect(e.packages).toEqual(["mnote-no-such-peer", "its-friend"]);
    expect(isMissingModule(e.cause, "mnote-no-such-peer/sub")).toBe(true);
  });

  it("a peer that is installed but cannot find a module of its own is its own error, not a missing peer", () => {
    const dir = tempDir("mnote-peer-");
    mkdirSync(join(dir, "node_modules", "half-peer"), { recursive: true });
    writeFileSync(join(dir, "node_modules", "half-peer", "index.js"), 'require("half-peer-dependency");\n');
    const load = () =>
      loadPeer("half-peer", ["half-peer"], "a feature", () => require(join(dir, "node_modules", "half-peer")));
    expect(load).toThrow(/Cannot find module 'half-peer-dependency'/);
    expect(load).not.toThrow(MissingPeerError);
  });

  it("other failures pass through unchanged, and a loaded peer is returned as it is", () => {
    const boom = new Error("boom");
    expect(() =>
      loadPeer("x", ["x"], "a feature", () => {
        throw boom;
      }),
    ).toThrow(boom);
    expect(loadPeer("node:path", ["node:path"], "a feature", () => require("node:path"))).toBe(require("node:path"));
    expect(isMissingModule(undefined, "x")).toBe(false);
  });
});
