/**
 * PostgreSQL for the suites that need it. Each suite gets a database of its own:
 * - MNOTE_TEST_POSTGRES_URL names a server that runs already: a fresh database is created on it
 *   (the user needs CREATEDB) and dropped after;
 * - otherwise a private server is started for the suite (test/support/postgres-server.js: initdb +
 *   pg_ctl in a temp folder on a free port), which the suite may also stop and restart.
 * Without the server binaries the suite is skipped with the reason and the install line;
 * MNOTE_REQUIRE_POSTGRES=1 (CI) turns that into a failing test.
 */
import { randomBytes } from "node:crypto";
import pg from "pg";
// eslint-disable-next-line @typescript-eslint/no-require-imports
const server = require("./postgres-server.js") as {
  startPostgres(): Promise<PrivatePostgres>;
  postgresMissing(): string | undefined;
};

export interface PrivatePostgres {
  port: number;
  url(database?: string): string;
  start(): Promise<void>;
  stop(mode?: "fast" | "immediate"): void;
  restart(mode?: "fast" | "immediate"): Promise<void>;
  destroy(): Promise<void>;
}

export interface TestPostgres {
  /** A URL to a database of this suite's own. */
  url: string;
  /** The private server, when the suite started one (to stop or restart it); undefined with MNOTE_TEST_POSTGRES_URL. */
  server?: PrivatePostgres;
  close(): Promise<void>;
}

const external = () => process.env.MNOTE_TEST_POSTGRES_URL || undefined;

/** Why Postgres cannot be had here, or undefined. */
export function postgresMissing(): string | undefined {
  return external() ? undefined : server.postgresMissing();
}

/** Why a suite cannot start and restart its own server here (the restart scenarios need it), or undefined. */
export function privatePostgresMissing(): string | undefined {
  return server.postgresMissing();
}

/** describe() for a suite that needs Postgres: skipped with the reason, or failed under MNOTE_REQUIRE_POSTGRES=1. */
export function describePostgres(name: string, body: () => void, missing = postgresMissing()): void {
  if (!missing) {
    describe(name, body);
    return;
  }
  if (process.env.MNOTE_REQUIRE_POSTGRES === "1") {
    describe(name, () => {
      it("has PostgreSQL", () => {
        throw new Error(`${missing}; MNOTE_REQUIRE_POSTGRES=1 makes PostgreSQL mandatory`);
      });
    });
    return;
  }
  process.stderr.write(`${name}: skipped: ${missing}\n`);
  describe.skip(`${name} (skipped: ${missing})`, body);
}

/** A database for this suite: on MNOTE_TEST_POSTGRES_URL's server, or on a private one (own = true forces that). */
export async function testPostgres(own = false): Promise<TestPostgres> {
  const given = own ? undefined : external();
  if (!given) {
    const started = await server.startPostgres();
    return { url: started.url("postgres"), server: started, close: () => started.destroy() };
  }
  const name = `mnote_test_${randomBytes(6).toString("hex")}`;
  const admin = new pg.Client({ connectionString: given });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(given);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async close() {
      const drop = new pg.Client({ connectionString: given });
      await drop.connect();
      try {
        await drop.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await drop.end();
      }
    },
  };
}

/** A fresh database on the same server as url (a clean slate per case). */
export async function freshDatabase(url: string): Promise<string> {
  const name = `mnote_case_${randomBytes(6).toString("hex")}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}
