import type { FieldChange } from "./patch";
import { mirrorVersionOf } from "./replicaFiles";
import type { Model, Replica, RevisionSpec, StoredRollout } from "./schemas";

// SPEC §11: revisions and the rules of a rollout, pure; the services store and announce them.

/** A model's revision; models stored before SPEC §11 are at 1. */
export const revisionOf = (model: Pick<Model, "revision">): number => model.revision ?? 1;
/** The revision a replica runs; replicas stored before SPEC §11 run 1. */
export const replicaRevision = (replica: Pick<Replica, "revision">): number => replica.revision ?? 1;

/** The fields whose change is a new revision (SPEC §11.1). */
export const REVISION_FIELDS: ReadonlySet<string> = new Set(["source", "args"]);

export const changesRevision = (changes: readonly Pick<FieldChange, "field">[]): boolean =>
  changes.some((c) => REVISION_FIELDS.has(c.field));

/** What a model runs at its current revision. */
export function revisionSpec(model: Model): RevisionSpec {
  return {
    source: model.source,
    profiles: model.profiles.map((p) => ({ name: p.name, engine: p.engine, args: p.args })),
  };
}

/** Whether a rollout is under way: its replicas of two revisions are the planner's business. */
export const rolloutActive = (rollout: StoredRollout | null | undefined): rollout is StoredRollout =>
  rollout?.state === "rolling" || rollout?.state === "canary";

/** At most this many replaced revisions are remembered; older ones' replicas are long drained. */
const REPLACED_KEPT = 16;

/**
 * A rollout to `next` (already carrying the new source or args) from `model`.
 *
 * A second change during a rollout: the newest wins. The rollout goes on from the revision that
 * was serving before the first change (`from`, what it ran in `previous`: a rollback still goes
 * back there), to a new revision (the highest number used + 1, never one used before: a
 * rolled-back revision's replicas may still be stopping). The revision in between is dropped: its
 * replicas are of neither revision, so the planner drains them like old ones (pending or
 * starting ones go at once, ready ones one per new replica ready) and they keep running what that
 * revision ran (`replaced`) until they stop. Its requests count for neither side of the ratio.
 */
export function startRollout(
  model: Model,
  next: Model,
  { at, by, canaryPercent }: { at: string; by: string; canaryPercent: number | null },
): Model {
  const running = rolloutActive(model.rollout) ? model.rollout : null;
  const from = running ? running.from : revisionOf(model);
  const previous = running ? running.previous : revisionSpec(model);
  const replaced = running
    ? [...(running.replaced ?? []), { revision: revisionOf(model), spec: revisionSpec(model) }].slice(
        -REPLACED_KEPT,
      )
    : [];
  const to = Math.max(revisionOf(model), model.rollout?.to ?? 0) + 1;
  const rollout: StoredRollout = {
    from,
    to,
    state: canaryPercent === null ? "rolling" : "canary",
    canaryPercent,
    reason: null,
    at,
    startedAt: at,
    by,
    previous,
    ...(replaced.length > 0 ? { replaced } : {}),
  };
  return { ...next, revision: to, rollout };
}

/**
 * The model with its rollout undone (SPEC §11.4): the old source, args and revision back, the
 * new revision's replicas left to be stopped as another revision's.
 */
export function rollBack(model: Model, reason: string, at: string): Model {
  const rollout = model.rollout;
  if (!rollout) return model;
  const { previous } = rollout;
  return {
    ...model,
    source: previous.source,
    profiles: model.profiles.map((p) => {
      const was = previous.profiles.find((q) => q.name === p.name);
      return was ? { ...p, engine: was.engine, args: was.args } : p;
    }),
    revision: rollout.from,
    rollout: { ...rollout, state: "rolledBack", reason, at },
  };
}

/**
 * What a replica of `revision` runs: the model's now, what the rollout's old revision ran, or
 * what a revision replaced mid-rollout ran.
 */
export function specFor(model: Model, revision: number): RevisionSpec {
  const rollout = model.rollout;
  if (!rollout || revision === revisionOf(model)) return revisionSpec(model);
  if (revision === rollout.from) return rollout.previous;
  return rollout.replaced?.find((r) => r.revision === revision)?.spec ?? revisionSpec(model);
}

/** Requests sent to and failed on a revision since its rollout began (SPEC §11.4). */
export type SentFailed = { sent: number; failed: number };

/**
 * SPEC §11.4's error-ratio rule: the new revision has had at least 10 requests and more of them
 * failed than `maxErrorRatio` allows, while the old one's ratio is below it.
 */
export function newRevisionFailing(
  requests: { old: SentFailed; new: SentFailed },
  maxErrorRatio: number,
): boolean {
  const ratio = ({ sent, failed }: SentFailed) => (sent === 0 ? 0 : failed / sent);
  return (
    requests.new.sent >= 10 && ratio(requests.new) > maxErrorRatio && ratio(requests.old) < maxErrorRatio
  );
}

/** What becomes of a rollout now: it is done, it rolls back (why, in numbers), or it goes on (null). */
export type RolloutVerdict = { state: "done" } | { state: "rolledBack"; reason: string } | null;

/**
 * SPEC §11.4: a rollout running (rolling or a held canary) is undone when a new replica ends
 * `failed` or is not ready within `readySeconds` of being placed, or when the new revision's
 * error ratio is above `maxErrorRatio` after at least 10 requests while the old one's is below;
 * else it is done once no replica of another revision is left.
 */
export function judgeRollout({
  model,
  replicas,
  requests,
  now,
  settings,
}: {
  model: Model;
  replicas: readonly Replica[];
  requests: { old: SentFailed; new: SentFailed };
  now: number;
  settings: { maxErrorRatio: number; readySeconds: number };
}): RolloutVerdict {
  const rollout = model.rollout;
  if (!rolloutActive(rollout) || rollout.to !== revisionOf(model)) return null;
  const fresh = replicas.filter((r) => !r.unmanaged && replicaRevision(r) === rollout.to);
  const failed = fresh.find((r) => r.state === "failed");
  if (failed) {
    return {
      state: "rolledBack",
      reason: `rolled back: replica ${failed.id} failed: ${failed.reason ?? "no reason given"}`,
    };
  }
  const bound = settings.readySeconds * 1000;
  const slow = fresh.find(
    (r) => (r.state === "starting" || r.state === "pending") && now - Date.parse(r.startedAt) > bound,
  );
  if (slow) {
    return {
      state: "rolledBack",
      reason: `rolled back: replica ${slow.id} not ready within ${settings.readySeconds} s`,
    };
  }
  const { old, new: next } = requests;
  if (newRevisionFailing(requests, settings.maxErrorRatio)) {
    return {
      state: "rolledBack",
      reason: `rolled back: ${next.failed} of ${next.sent} requests failed on revision ${rollout.to} (${old.failed} of ${old.sent} on revision ${rollout.from})`,
    };
  }
  if (rollout.state !== "rolling") return null;
  const left = replicas.some(
    (r) => !r.unmanaged && r.state !== "failed" && replicaRevision(r) !== rollout.to,
  );
  return left ? null : { state: "done" };
}

/**
 * The mirrored versions agents keep cached while a rollout runs (SPEC §11.2): what the old
 * revision ran and what the new one runs, whichever node they are on, until it is done.
 */
export function keptVersions(models: readonly Model[]): { model: string; version: string }[] {
  const kept = new Map<string, { model: string; version: string }>();
  for (const model of models) {
    if (!rolloutActive(model.rollout)) continue;
    const replaced = (model.rollout.replaced ?? []).map((r) => r.spec.source);
    for (const source of [model.rollout.previous.source, ...replaced, model.source]) {
      const key = mirrorVersionOf(source);
      if (key) kept.set(`${key.model}/${key.version}`, key);
    }
  }
  return [...kept.values()];
}
