/**
 * cli/watch.ts: the snapshot it compares after a folder appears or vanishes, and a save after the
 * watched folder itself was removed and recreated is still reported (the watch is re-armed).
 * Waits are polled with a wide timeout (CI runs on loaded cores); no speed is asserted.
 */
import { mkdirSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { sameSnapshot, snapshot, watchFolder, type FolderWatch } from "../../cli/watch";
import { tempDir } from "../support/tmp";

const TIMEOUT_MS = 20_000;

async function until(done: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + TIMEOUT_MS;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe("snapshot", () => {
  it("tells a changed size, a changed mtime, an added and a removed file apart from no change", () => {
    const dir = join(tempDir(), "c");
    mkdirSync(join(dir, "t"), { recursive: true });
    const file = join(dir, "t", "a.json");
    writeFileSync(file, "1");
    const before = snapshot(dir);
    expect(before.size).toBe(2); // the folder and the file
    expect(sameSnapshot(before, snapshot(dir))).toBe(true);

    writeFileSync(file, "22");
    const resized = snapshot(dir);
    expect(sameSnapshot(before, resized)).toBe(false);

    utimesSync(file, new Date(1_000_000), new Date(1_000_000));
    expect(sameSnapshot(resized, snapshot(dir))).toBe(false);

    writeFileSync(join(dir, "b.json"), "x");
    const added = snapshot(dir);
    expect(added.size).toBe(3);
    rmSync(join(dir, "b.json"));
    expect(sameSnapshot(added, snapshot(dir))).toBe(false);
  });

  it("is empty for a folder that is not there", () => {
    expect(snapshot(join(tempDir(), "absent")).size).toBe(0);
  });
});

describe("watchFolder", () => {
  let watch: FolderWatch | undefined;
  afterEach(async () => {
    await watch?.close();
    watch = undefined;
  });

  it("reports a plain save after the watched folder itself was removed and recreated", async () => {
    const dir = join(tempDir(), "c");
    const file = join(dir, "t", "a.json");
    mkdirSync(join(dir, "t"), { recursive: true });
    writeFileSync(file, "1");
    let changes = 0;
    watch = await watchFolder(dir, () => changes++);

    rmSync(dir, { recursive: true });
    await until(() => changes > 0, "the removal to be reported");
    await new Promise((r) => setTimeout(r, 300));
    mkdirSync(join(dir, "t"), { recursive: true });
    writeFileSync(file, "22");
    const afterRemoval = changes;
    await until(() => changes > afterRemoval, "the recreated folder to be reported");

    // past the re-arm, then a plain save, like an editor's after a git checkout
    await new Promise((r) => setTimeout(r, 500));
    const beforeSave = changes;
    writeFileSync(file, "333");
    await until(() => changes > beforeSave, "a plain save to be reported");
  });
});
