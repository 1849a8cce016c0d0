/** @mnote/runtime/postgres: the grant and idempotency stores on PostgreSQL. Needs the optional peer pg. */
export { PgGrantStore } from "./state/pg-grant-store";
export { PgIdempotencyStore } from "./state/pg-idempotency-store";
export { openPgState, type PgState, type PgStateOptions } from "./state/pg-state";
export { migrate, MIGRATIONS, type Migration } from "./state/pg-migrations";
export { StoreUnavailableError, STORE_UNAVAILABLE_CODE } from "./state/pg-pool";
