/**
 * The asymmetric JWS algorithms a bearer JWT may be signed with (never HS*: a shared secret is no
 * issuer's key), and those accepted unless `--oauth-algorithms` says otherwise. A file of its own,
 * with no imports, so the CLI checks the option without loading the OAuth code.
 */
export const ASYMMETRIC_ALGORITHMS: readonly string[] = [
  "RS256",
  "RS384",
  "RS512",
  "PS256",
  "PS384",
  "PS512",
  "ES256",
  "ES384",
  "ES512",
  "EdDSA",
  "Ed25519",
];

/** Accepted unless configured: what issuers sign access tokens with by default. */
export const DEFAULT_ALGORITHMS: readonly string[] = ["RS256", "PS256", "ES256", "EdDSA"];
