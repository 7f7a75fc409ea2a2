// A leaf: routes name their need (route.ts) and the access table reads it (access.ts), which
// reads every route; the type lives below both so neither imports the other back.

/**
 * The least a route asks of the caller. `agent` is not a rank: only agent tokens have it.
 * `weights` is the mirror's files: every reader, and agents too, which fetch them for their node.
 * `inference` is the request path (`/v1/*`, SPEC §7): client tokens, and operators and admins.
 */
export type Need = "public" | "viewer" | "operator" | "admin" | "agent" | "weights" | "inference";
