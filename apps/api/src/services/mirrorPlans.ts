import {
  type ChangeEvent,
  ggufVerdict,
  MIRROR_LAYOUT,
  type MirrorEntry,
  type MirrorVersion,
  type ServePlan,
  servePlan,
} from "@llmgw/domain";
import type { Deps } from "../deps";
import { notFound } from "../errors";
import type { VersionKey } from "../mirror/scanner";
import { commit } from "./commit";

/** What a plan reads: the fleet and catalogue, the mirror's headers, and the mirror's base URL. */
type PlanDeps = Pick<Deps, "world" | "mirror" | "config">;

/** SPEC §2.2 with the real fleet, catalogue and the version's GGUF header. */
async function planFor(deps: PlanDeps, version: MirrorVersion, ctxPool?: number): Promise<ServePlan> {
  const [snap, header] = await Promise.all([
    deps.world.snapshot(),
    deps.mirror.headerOf(version.model, version.version),
  ]);
  const existing = snap.modelsByName.get(version.model) ?? null;
  return servePlan({
    version,
    baseUrl: deps.config.mirror.baseUrl,
    nodes: snap.nodes,
    existing: existing && { origin: existing.origin },
    verdict: header ? ggufVerdict(header) : null,
    ...(ctxPool === undefined ? {} : { ctxPool }),
  });
}

/** `GET /mirror`: every mirrored version with its serve plan on the fleet as it is. */
export async function mirrorEntries({ deps }: { deps: PlanDeps }): Promise<MirrorEntry[]> {
  return Promise.all(deps.mirror.list().map(async (v) => ({ ...v, plan: await planFor(deps, v) })));
}

/** `GET /mirror/info`: where the mirror is, the layout it expects, and what stands out of it. */
export async function mirrorInfo({ deps }: { deps: Pick<Deps, "mirror"> }) {
  return { dir: deps.mirror.dir, layout: MIRROR_LAYOUT, misplaced: await deps.mirror.misplaced() };
}

/** `GET /mirror/:model/:version/plan`: one mirrored version's serve plan, or the 404. */
export async function planOf({
  deps,
  input,
}: {
  deps: PlanDeps;
  input: { model: string; version: string; ctxPool?: number | undefined };
}): Promise<ServePlan> {
  const { model, version, ctxPool } = input;
  const found = await deps.mirror.get(model, version);
  if (!found) throw notFound(`mirrored version ${model}/${version}`);
  return planFor(deps, found, ctxPool);
}

/** Records what the mirror's watch saw and announces it: the Mirror screen's progress bars live on this. */
export async function mirrorChanged({
  deps,
  input,
}: {
  deps: Deps;
  input: { changed: MirrorVersion[]; removed: VersionKey[] };
}): Promise<void> {
  const { changed, removed } = input;
  const entries = await Promise.all(changed.map(async (v) => ({ ...v, plan: await planFor(deps, v) })));
  await commit(deps, async (tx) => {
    const events: ChangeEvent[] = [];
    for (const entry of entries) {
      const { plan: _plan, ...version } = entry;
      await tx.mirror.put(version);
      events.push({ type: "mirror.changed", data: entry });
    }
    for (const key of removed) {
      await tx.mirror.remove(key.model, key.version);
      events.push({ type: "mirror.changed", data: { ...key, removed: true } });
    }
    return { result: undefined, events };
  });
}
