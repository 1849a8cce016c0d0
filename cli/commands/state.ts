/**
 * `mnote-tools state migrate`: brings a Postgres state's schema up to date and says what it did,
 * for operators who migrate before rolling out (serve, mcp and call also migrate on start-up; both
 * take the same advisory lock, so they never race). A SQLite state file needs no migration: its
 * tables are made when it is opened.
 */
import { stateLocation } from "../state-url";
import { environmentError } from "../exit";

export async function runStateMigrate(opts: { state: string }): Promise<void> {
  const location = stateLocation(opts.state);
  if (location.kind !== "postgres")
    throw environmentError(
      "state migrate: --state names a SQLite file, which needs no migration (give postgres://...)",
    );
  const { openPgPool } = await import("../../runtime/state/pg-pool");
  const { migrate, MIGRATIONS } = await import("../../runtime/state/pg-migrations");
  const { withoutPassword } = await import("../runtime-options");
  const pool = openPgPool({ url: location.url, max: 1 });
  try {
    const applied = await migrate(pool).catch((e: Error) => {
      throw environmentError(`--state ${withoutPassword(location.url)}: ${e.message}`);
    });
    const latest = MIGRATIONS[MIGRATIONS.length - 1]!.version;
    console.log(JSON.stringify({ applied, version: latest }));
  } finally {
    await pool.end().catch(() => undefined);
  }
}
