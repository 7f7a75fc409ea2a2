import { counted, type ModelSummary } from "@llmgw/domain";

/** What a card says while its model runs fewer replicas than it wants, and whether it is a "why not". */
export type Placing = { text: string; why: boolean };

/**
 * "placing 1 replica…" from the moment a model wants replicas (a new one from the wizard, a raised
 * count) until they run, or until something says why not: a held-back replica's reason, a quota
 * with no room, or the nodes that hold none, in numbers. With the scheduler off nothing is placed:
 * it says so, rather than "placing…" forever. Null once every wanted replica runs.
 */
export function placingOf(model: ModelSummary, options: { scheduler?: boolean } = {}): Placing | null {
  // On demand wants none until woken; the wake button and the replicas say the rest.
  const wanted = model.mode === "always" ? model.scaling.min : 0;
  // Running is the domain's count (SPEC §2.4): ready on a ready node. A ready replica on a draining
  // or down node serves nobody new, so it does not make the card stop saying what is missing.
  const running = model.headroom.current;
  const missing = wanted - running;
  if (missing <= 0) return null;

  const held = model.replicas.find((r) => (r.state === "pending" || r.state === "failed") && r.reason);
  if (held?.reason) return { text: `${counted(missing, "replica")} not running: ${held.reason}`, why: true };
  const starting = model.replicas.filter((r) => r.state === "starting").length;
  if (starting > 0) return { text: `starting ${counted(starting, "replica")}…`, why: false };
  const pending = model.replicas.filter((r) => r.state === "pending").length;
  const { headroom } = model;
  if (pending === 0 && headroom.total === 0) {
    if (headroom.limitedBy === "quota")
      return { text: `no room in the quota of ${model.owner || "unowned models"}`, why: true };
    const [first] = headroom.whyNot;
    if (first)
      return {
        text: `no node can take it: ${first.cause} on ${counted(first.nodes, "node")}, e.g. ${first.example}`,
        why: true,
      };
  }
  if (options.scheduler === false && pending === 0)
    return {
      text: `${counted(missing, "replica")} not running: the scheduler is off, only agents start replicas`,
      why: true,
    };
  return { text: `placing ${counted(missing, "replica")}…`, why: false };
}
