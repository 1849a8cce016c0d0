/**
 * The child-process side: `node dist/bench/worker.js <section> <contender> <options json>` runs one
 * contender of one section and prints its result as one JSON line.
 */
async function run(section: string, contender: string, options: unknown): Promise<unknown> {
  switch (section) {
    case "validators":
      return (await import("./validators")).worker(contender, options as never);
    case "dispatch":
      return (await import("./dispatch")).worker(contender, options as never);
    case "kernel":
      return (await import("./kernel")).worker(contender, options as never);
    case "runtimeCost":
      return (await import("./runtime-cost")).worker(contender, options as never);
    case "store":
      return (await import("./store")).worker(contender, options as never);
    case "stateStores":
      return (await import("./state-stores")).worker(contender, options as never);
    default:
      throw new Error(`no worker for section ${section}`);
  }
}

const [section, contender, options] = process.argv.slice(2);
run(section ?? "", contender ?? "", JSON.parse(options ?? "{}"))
  .then((result) => {
    process.stdout.write(JSON.stringify(result) + "\n");
  })
  .catch((e: unknown) => {
    process.stderr.write(`${(e as Error)?.stack ?? String(e)}\n`);
    process.exitCode = 1;
  });
