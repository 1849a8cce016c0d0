import { MemoryBudgetStore } from "../../runtime/state/budget-memory";

// probe: a live counter at its limit must not be forgotten by the trim while ended windows or
// colder counters could go instead
test("a counter at its limit survives other keys' churn", async () => {
  let now = 1_000;
  const store = new MemoryBudgetStore(() => now, 10);
  const hot = [{ key: "hot", limit: 2 }];
  // 'hot' is created first, its window ends, and it is counted again (same Map position)
  expect((await store.take(hot, 100)).ok).toBe(true);
  now += 200;
  for (let i = 0; i < 8; i++) await store.take([{ key: `cold${i}`, limit: 5 }], 100_000);
  expect((await store.take(hot, 100_000)).ok).toBe(true);
  expect((await store.take(hot, 100_000)).ok).toBe(true);
  expect((await store.take(hot, 100_000)).ok).toBe(false); // at its limit
  // two more keys push the store past maxKeys: the trim runs
  await store.take([{ key: "x1", limit: 5 }], 100_000);
  await store.take([{ key: "x2", limit: 5 }], 100_000);
  expect((await store.take(hot, 100_000)).ok).toBe(false); // still at its limit
});
