/**
 * `mnote-tools session grant|show|revoke`: session grants in the runtime's state file, for a host on
 * the same machine (the HTTP route POST /v1/sessions does the same for a remote host).
 */
import { CliExit } from "../exit";
import { isGrantLive } from "../../common/grant-liveness";

export interface GrantOptions {
  state: string;
  grants?: string;
  session: string;
  workspace: string;
  document: string;
  actor: string;
  scope: string;
  ttl: number;
  trace?: string;
  locale?: string;
  principalIssuer?: string;
  principalSubject?: string;
}

async function stores(statePath: string, redis?: string) {
  if (redis) {
    const { redisGrantStore } = await import("../runtime-options");
    const grants = await redisGrantStore(redis);
    return { grants, close: async () => void grants.close() };
  }
  const { stateLocation } = await import("../state-url");
  const location = stateLocation(statePath);
  if (location.kind === "postgres") {
    const { pgState } = await import("../runtime-options");
    const state = await pgState(location.url);
    return { grants: state.grants, close: () => state.close() };
  }
  const { openDatabase } = await import("../../common/sqlite");
  const { SqliteGrantStore } = await import("../../runtime/state/grant-store");
  const { createPrivateFile } = await import("../../runtime/approval/state-file");
  createPrivateFile(location.path); // 0600: the runtime keeps its approval key in the same file
  const db = openDatabase(location.path);
  return { grants: new SqliteGrantStore(db), close: async () => db.close() };
}

export async function runSessionGrant(opts: GrantOptions): Promise<void> {
  const { validateSessionGrant } = await import("../../generated/validators");
  const { firstProblemPointer } = await import("../../runtime/dispatch/problems");
  const grant: Record<string, unknown> = {
    sessionId: opts.session,
    workspaceId: opts.workspace,
    documentId: opts.document,
    actorId: opts.actor,
    capabilityScope: opts.scope
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean),
    expiresAt: new Date(Date.now() + opts.ttl * 1000).toISOString(),
  };
  if (opts.trace) grant.traceId = opts.trace;
  if (opts.locale) grant.locale = opts.locale;
  // the person an OAuth caller must be to use this grant (both or neither)
  if ((opts.principalIssuer === undefined) !== (opts.principalSubject === undefined)) {
    console.error("--principal-issuer and --principal-subject go together");
    throw new CliExit(2);
  }
  if (opts.principalIssuer !== undefined)
    grant.principal = { issuer: opts.principalIssuer, subject: opts.principalSubject };
  if (!validateSessionGrant(grant)) {
    const issue = validateSessionGrant.errors?.[0];
    console.error(
      `invalid grant at ${firstProblemPointer(validateSessionGrant.errors) || "/"}: ${issue?.message ?? "?"}`,
    );
    throw new CliExit(2);
  }
  const { grants, close } = await stores(opts.state, opts.grants);
  try {
    await grants.put(grant);
    console.log(JSON.stringify(grant));
  } finally {
    await close();
  }
}

export async function runSessionShow(sessionId: string, opts: { state: string; grants?: string }): Promise<void> {
  const { grants, close } = await stores(opts.state, opts.grants);
  try {
    const grant = await grants.get(sessionId);
    if (!grant || !isGrantLive(grant, Date.now())) {
      console.error(`no live grant for session ${sessionId}`);
      throw new CliExit(1);
    }
    console.log(JSON.stringify(grant));
  } finally {
    await close();
  }
}

export async function runSessionRevoke(sessionId: string, opts: { state: string; grants?: string }): Promise<void> {
  const { grants, close } = await stores(opts.state, opts.grants);
  try {
    if (!(await grants.revoke(sessionId))) {
      console.error(`no grant for session ${sessionId}`);
      throw new CliExit(1);
    }
    console.log(`revoked ${sessionId}`);
  } finally {
    await close();
  }
}
