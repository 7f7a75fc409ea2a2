import { contract, keyOf, ROUTES, type Route } from "@llmgw/contract";
import { newToken } from "../src/auth/secrets";
import type { Role } from "../src/config";
import { heartbeat, modelInput } from "./factories";

// The routes whose JSON body the server checks, read from the contract, and one body each accepts.
// The mass-assignment and media-type cases (security.hardening.test.ts) and the fuzz's starting
// points (security-fuzz.ts) are built from these, so a route that takes a body cannot escape them:
// until it has a sample here, the hardening test names it and the fuzz refuses to run.

/** A body the route accepts, and who may send it. */
export type Sample = { role: Role; body: () => Record<string, unknown> };

/**
 * Test data, by route. No sample is enough to change anything on its own: the session's token is
 * one the server never made, and every case spoils the body or the credentials before sending it.
 */
const SAMPLES = new Map<Route, Sample>([
  [contract.models.create, { role: "operator", body: () => modelInput() }],
  [
    contract.models.patch,
    { role: "operator", body: () => ({ description: "x", aliases: ["a"], replicas: 1 }) },
  ],
  [contract.models.target, { role: "operator", body: () => ({ replicas: 1, dryRun: true }) }],
  [contract.models.bench, { role: "operator", body: () => ({ concurrency: [1], requests: 1 }) }],
  [contract.models.rollout, { role: "operator", body: () => ({ action: "promote" }) }],
  [
    contract.models.putBench,
    {
      role: "operator",
      body: () => ({
        model: "m",
        runs: [
          {
            concurrency: 1,
            requests: 1,
            errors: 0,
            ttftMs: { p50: 1, p95: 1 },
            itlMsP50: 1,
            tokensPerSecond: 1,
            tokensPerSecondPerRequest: 1,
            requestsPerSecond: 1,
          },
        ],
        measuredMemoryGB: null,
        replicas: [],
      }),
    },
  ],
  [
    contract.agents.heartbeat,
    // A replica, so a stray key can be tried inside one too.
    { role: "agent", body: () => heartbeat({ replicas: [{ id: "r", model: "m", state: "ready" }] }) },
  ],
  [
    contract.quotas.put,
    { role: "admin", body: () => ({ memoryGB: 1, cpuCores: 1, gpus: null, replicas: 1 }) },
  ],
  [contract.pulls.create, { role: "operator", body: () => ({ repo: "owner/name", dryRun: true }) }],
  [contract.tokens.create, { role: "admin", body: () => ({ name: "sample-token", role: "viewer" }) }],
  [contract.session.signIn, { role: "viewer", body: () => ({ token: newToken() }) }],
]);

/** Every route whose body is checked before its handler runs (the request path reads its own). */
export const BODY_ROUTES: readonly Route[] = ROUTES.filter(
  (r) => r.body !== undefined && !r.checkedByHandler,
);

/** The keys of the routes that take a body and have no sample: what the coverage test names. */
export const unsampled = (): string[] => BODY_ROUTES.filter((r) => !SAMPLES.has(r)).map(keyOf);

/** A route that takes a body, with its sample and a path to send it to. */
export type BodyCase = Sample & { key: string; method: string; path: string };

/** The sampled body routes, each at a path whose parameters are filled with a name nothing holds. */
export function bodyCases(): BodyCase[] {
  return BODY_ROUTES.flatMap((route) => {
    const sample = SAMPLES.get(route);
    if (!sample) return [];
    const path = route.path.replace(/:[a-zA-Z]+/g, "sample");
    return [{ ...sample, key: keyOf(route), method: route.method, path }];
  });
}

/** The sample for a route key (`"PATCH /api/v1/models/:name"`); null when the route takes no body. */
export function sampleFor(key: string): Sample | null {
  const route = BODY_ROUTES.find((r) => keyOf(r) === key);
  if (!route) return null;
  const sample = SAMPLES.get(route);
  if (!sample) throw new Error(`${key} takes a body but has no sample in test/security-bodies.ts`);
  return sample;
}
