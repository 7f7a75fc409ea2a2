import { capacity } from "./capacity";
import { agents, fleet } from "./fleet";
import { inference } from "./inference";
import { install } from "./install";
import { meta } from "./meta";
import { mirror, pulls, weights } from "./mirror";
import { models } from "./models";
import { audit, quotas } from "./quotas";
import type { Route } from "./route";
import { session, tokens } from "./tokens";
import { traffic } from "./traffic";
import { usage } from "./usage";

export {
  modelReferenceSchema,
  type OpenAiModel,
  openAiErrorSchema,
  openAiModelSchema,
} from "./inference";
export type { MirrorListingEntry } from "./mirror";
export * from "./route";
export {
  type TrafficHistory,
  type TrafficSecond,
  trafficHistorySchema,
  trafficSecondSchema,
} from "./traffic";

/**
 * The whole HTTP surface, by resource and operation (`contract.models.get`). Each route is written
 * once; the server registers, authorizes and documents what is here, and the typed client calls it.
 */
export const contract = {
  models,
  fleet,
  agents,
  capacity,
  traffic,
  mirror,
  pulls,
  quotas,
  audit,
  usage,
  tokens,
  session,
  meta,
  weights,
  inference,
  install,
} as const;

export type Contract = typeof contract;

/**
 * Every route in the order the server registers them: a fallback after the routes it falls back
 * from (Hono runs the first endpoint that matches), the dashboard's catch-all last of all.
 */
export const ROUTES: readonly Route[] = (() => {
  const all = Object.values(contract).flatMap((group): Route[] => Object.values(group));
  const last = (r: Route) => (r === meta.dashboard ? 2 : r.fallback ? 1 : 0);
  return all
    .map((r, i) => [r, i] as const)
    .sort(([a, i], [b, j]) => last(a) - last(b) || i - j)
    .map(([r]) => r);
})();

/** A route's key in the access table and the security matrix: `"PATCH /api/v1/models/:name"`. */
export const keyOf = (r: Pick<Route, "method" | "path">) => `${r.method} ${r.path}`;
