import type { TrafficHistory } from "@llmgw/contract";
import type { Headroom, ModelSummary, ModelView } from "@llmgw/domain";
import type { Body } from "../body";
import type { Deps } from "../deps";
import { type RecentTraffic, sumSeconds, TRAFFIC_HISTORY_SECONDS } from "../metrics/recentTraffic";
import { modelView } from "../world";
import { headroomNamed, modelNamed } from "./modelNamed";

// What the API answers about models, read from the snapshot: the routes read no world themselves.

/** A read of one model: the picture, and the name asked for. */
type OneModel = { deps: Pick<Deps, "world">; input: { name: string } };

/** `GET /models`: every model's card, serialised once per picture. */
export async function listModels({ deps }: { deps: Pick<Deps, "world"> }): Promise<Body<ModelSummary[]>> {
  return (await deps.world.snapshot()).modelsBody;
}

/** `GET /models/:name`: the model as the API shows one model. */
export async function getModel({ deps, input }: OneModel): Promise<ModelView> {
  const snap = await deps.world.snapshot();
  return modelView(snap, modelNamed(snap, input.name));
}

/** `GET /models/:name/headroom`: how many more replicas of it fit, node by node. */
export async function modelHeadroom({ deps, input }: OneModel): Promise<Headroom> {
  return headroomNamed(await deps.world.snapshot(), input.name);
}

/**
 * A model's recent traffic (SPEC §7.7): what this process's ticker kept, and on a shared
 * PostgreSQL every process's, summed by second (an embedded store has no other process).
 */
export async function modelTraffic({
  deps,
  recent,
  input,
}: {
  deps: Pick<Deps, "world" | "store">;
  recent: RecentTraffic;
  input: { name: string };
}): Promise<TrafficHistory> {
  modelNamed(await deps.world.snapshot(), input.name);
  const now = Math.floor(Date.now() / 1000);
  const own = recent.of(input.name, now);
  if (deps.store.kind !== "postgres") return own;
  const rows = await deps.store.traffic.of(input.name, now - TRAFFIC_HISTORY_SECONDS + 1);
  return { ...own, seconds: sumSeconds(rows.filter((r) => r.at <= now)) };
}
