import type { ChangeEvent, Node, Replica, usageOn } from "@llmgw/domain";
import type { StoreTx } from "@llmgw/store";
import type { AgentBindings, NewBinding } from "../auth/agentNodes";
import type { Deps } from "../deps";
import { AppError } from "../errors";
import { withNode, withNodes } from "../world";
import { commit } from "./commit";

/** One heartbeat's change, as `heartbeat` found it against its picture of the fleet. */
export type BeatWrite = {
  node: Node;
  reported: readonly { id: string }[];
  /** The node's replicas in that picture. */
  previous: readonly Replica[];
  /** Merges the report with the node's rows as the transaction reads them. */
  merge: (stored: readonly Replica[]) => Replica[];
  nodeChanged: boolean;
  replicasChanged: boolean;
  binding: { binding: NewBinding; bindings: AgentBindings } | null;
  /** The node's bar in `node.changed`, from the picture's index and the merged replicas. */
  usage: ReturnType<typeof usageOn>;
};

/**
 * Commits a heartbeat's change. Beats that arrive while another commit runs wait for it and then
 * commit together, in one transaction with one append of their events and one patch of the
 * picture: on PGlite a commit costs many times a beat's own statements, so a fleet's first beats
 * would otherwise take many times as long as unchanged ones. Each beat's rows, events and their
 * order are what committing it alone would give; when a batch fails (a beat refused, say), its
 * beats are committed again one by one, so only the refused one is refused.
 */
export function writeBeat(deps: Deps, queue: BeatQueue, write: BeatWrite): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    queue.pending.push({ write, resolve, reject });
    if (!queue.running) void drain(deps, queue);
  });
}

/** A batch large enough to spread a commit's cost, small enough that one event append stays modest. */
const MAX_BATCH = 100;
/** How many turns a batch may wait to grow: a turn costs little when nothing else is to be done. */
const MAX_TURNS = 8;

type Waiting = { write: BeatWrite; resolve: () => void; reject: (err: unknown) => void };

/** The heartbeats waiting to be committed in one app (its agents' route holds it), and whether a commit runs. */
export class BeatQueue {
  pending: Waiting[] = [];
  running = false;
}

async function drain(deps: Deps, queue: BeatQueue): Promise<void> {
  queue.running = true;
  try {
    while (queue.pending.length > 0) {
      // Turns of the event loop first: PGlite's statements hold the thread while they run, so the
      // beats that arrived meanwhile are parsed, and join this batch, only once it yields; it
      // yields again while the batch still grows (a beat's body takes a few turns to arrive).
      for (let turns = 0; turns < MAX_TURNS; turns++) {
        const waiting = queue.pending.length;
        await new Promise((resolve) => setImmediate(resolve));
        if (queue.pending.length === waiting || queue.pending.length >= MAX_BATCH) break;
      }
      const batch = queue.pending.splice(0, MAX_BATCH);
      if (batch.length === 1 || !(await together(deps, batch))) {
        for (const waiting of batch) await alone(deps, waiting);
      }
    }
  } finally {
    queue.running = false;
  }
}

/**
 * Commits the batch as one; false (nothing written) when it failed before its commit, or when two
 * of its beats share a node or a replica id (then each reads what the one before wrote: one by one).
 */
async function together(deps: Deps, batch: readonly Waiting[]): Promise<boolean> {
  const writes = batch.map((w) => w.write);
  if (!disjoint(writes)) return false;
  let committed = false;
  try {
    await commit(
      deps,
      async (tx) => {
        const stored = await storeAll(tx, writes);
        return { result: stored.map((s) => s.stored), events: stored.flatMap((s) => s.events) };
      },
      (stored) => {
        committed = true;
        return (snap) =>
          withNodes(
            snap,
            writes.map((w, i) => ({ node: w.node, replicas: stored[i] ?? w.previous })),
          );
      },
    );
  } catch (err) {
    if (!committed) return false;
    for (const waiting of batch) waiting.reject(err);
    return true;
  }
  for (const waiting of batch) waiting.resolve();
  return true;
}

function disjoint(writes: readonly BeatWrite[]): boolean {
  const nodes = new Set(writes.map((w) => w.node.name));
  const ids = new Set<string>();
  let reported = 0;
  for (const w of writes) {
    for (const r of w.reported) ids.add(r.id);
    reported += w.reported.length;
  }
  return nodes.size === writes.length && ids.size === reported;
}

async function alone(deps: Deps, { write, resolve, reject }: Waiting): Promise<void> {
  await commit(
    deps,
    async (tx) => {
      const [written] = await storeAll(tx, [write]);
      return { result: written?.stored ?? [], events: written?.events ?? [] };
    },
    (stored) => (snap) => withNode(snap, write.node, stored),
  ).then(resolve, reject);
}

/**
 * The beats' writes in `tx`, each beat's replicas merged with its node's rows as they are now (the
 * scheduler may have placed one since the picture), in a few statements for all of them.
 */
async function storeAll(
  tx: StoreTx,
  writes: readonly BeatWrite[],
): Promise<{ stored: Replica[]; events: ChangeEvent[] }[]> {
  const changing = writes.filter((w) => w.replicasChanged);
  const rowsByNode = new Map<string, Replica[]>(changing.map((w) => [w.node.name, []]));
  for (const row of await tx.replicas.listByNodes(changing.map((w) => w.node.name)))
    if (row.node !== null) rowsByNode.get(row.node)?.push(row);
  await refuseOthers(tx, changing, rowsByNode);
  const merged = new Map(changing.map((w) => [w, w.merge(rowsByNode.get(w.node.name) ?? [])]));
  const outcomes = await tx.replicas.replaceForNodes(
    changing.map((w) => ({ node: w.node.name, replicas: merged.get(w) ?? [] })),
  );
  for (const w of writes) if (w.binding) await w.binding.bindings.bind(tx, w.binding.binding);
  await tx.nodes.upsertAll(writes.filter((w) => w.nodeChanged).map((w) => w.node));
  return writes.map((write) => {
    const { node } = write;
    // The snapshot's index has the node as it was: its bar from the replicas just merged.
    const events: ChangeEvent[] = [{ type: "node.changed", data: { ...node, usage: write.usage } }];
    const stored = merged.get(write);
    if (!stored) return { stored: [...write.previous], events };
    const { upserted = [], removed = [] } = outcomes[changing.indexOf(write)] ?? {};
    for (const replica of upserted) events.push({ type: "replica.changed", data: replica });
    const rowsById = new Map((rowsByNode.get(node.name) ?? []).map((r) => [r.id, r]));
    for (const id of removed) {
      // `removed` is what the delete took of the rows read above in this transaction; one
      // another writer put on the node in between is announced by its node.changed alone.
      const row = rowsById.get(id);
      if (row) events.push({ type: "replica.changed", data: { ...row, removed: true } });
    }
    return { stored, events };
  });
}

/**
 * 409 for a reported id the store holds on another node, or placed nowhere yet: taking it would
 * move another node's replica (and its traffic) here. One indexed query for the ids new to their node.
 */
async function refuseOthers(
  tx: StoreTx,
  writes: readonly BeatWrite[],
  rowsByNode: ReadonlyMap<string, readonly Replica[]>,
): Promise<void> {
  const fresh = writes.flatMap((w) => {
    const mine = new Set((rowsByNode.get(w.node.name) ?? []).map((r) => r.id));
    return w.reported.flatMap((r, i) => (mine.has(r.id) ? [] : [{ node: w.node.name, id: r.id, i }]));
  });
  if (fresh.length === 0) return;
  const held = await tx.replicas.nodesOf(fresh.map((r) => r.id));
  const taken = fresh.find((r) => held.has(r.id));
  if (!taken) return;
  throw new AppError({
    code: "replica_conflict",
    message: `replica ${taken.id} belongs to another node, not ${taken.node}; an agent reports only its own node's replicas`,
    fields: { [`replicas.${taken.i}.id`]: "held by another node" },
  });
}
