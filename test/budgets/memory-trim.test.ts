import { MemoryBudgetStore } from "../../runtime/state/budget-memory";

// The process's own counters (runtime/state/budget-memory.ts) are bounded: past maxKeys the trim
// drops ended windows first, then the least recently counted, never a busy counter at its limit.
test("a counter at its limit survives other keys' churn (least recently counted go first)", async () => {
  let now = 1_000;
  const store = new MemoryBudgetStore(() => now, 10);
  const hot = [{ key: "hot", limit: 2 }];
  // 'hot' is created first, its window ends, and it is counted again (a new window for an old key)
  expect((await store.take(hot, 100)).ok).toBe(true);
  now += 200;
  for (let i = 0; i < 8; i++) await store.take([{ key: `cold${i}`, limit: 5 }], 100_000);
  expect((await store.take(hot, 100_000)).ok).toBe(true);
  expect((await store.take(hot, 100_000)).ok).toBe(true);
  expect((await store.take(hot, 100_000)).ok).toBe(false); // at its limit
  // two more keys push the store past maxKeys: the trim runs
  await store.take([{ key: "x1", limit: 5 }], 100_000);
  await store.take([{ key: "x2", limit: 5 }], 100_000);
  expect(store.size).toBeLessThanOrEqual(10);
  expect((await store.take(hot, 100_000)).ok).toBe(false); // still at its limit
  // the coldest counter went instead: it counts from zero again
  expect((await store.take([{ key: "cold0", limit: 1 }], 100_000)).ok).toBe(true);
});

test("ended windows are dropped before any live counter", async () => {
  let now = 1_000;
  const store = new MemoryBudgetStore(() => now, 10);
  const live = [{ key: "live", limit: 1 }];
  expect((await store.take(live, 100_000)).ok).toBe(true);
  for (let i = 0; i < 9; i++) await store.take([{ key: `short${i}`, limit: 5 }], 50);
  now += 100; // every short window has ended; 'live' is the oldest entry but still in its window
  await store.take([{ key: "new", limit: 5 }], 100_000);
  expect(store.size).toBe(2);
  expect((await store.take(live, 100_000)).ok).toBe(false);
});
