import { DIMENSIONS } from "../fleetIndex";
import { type Placement, UNKNOWN_NEED } from "../placement";
import type { Resources } from "../schemas";
import type { Room } from "./room";

/** How many node names a reason lists before it counts the rest. */
const NAMED = 3;

/**
 * Why a replica of `need` has no node, in numbers (SPEC §2.6): the need is unknown; or no node
 * may hold the model at all, with headroom's per-node reasons grouped; or the first resource no
 * node it may use has enough of, naming the node with the most; or, when each resource is free
 * somewhere but never all on one node, the roomiest node's numbers. Preemption was tried before
 * a replica is left pending, so these are the numbers after it.
 */
export function unplacedReason(room: Room, placement: Placement, need: Resources): string {
  if (need.memoryGB <= 0 && need.cpuCores <= 0 && need.gpus <= 0) return UNKNOWN_NEED;
  const { index } = room;
  if (index.nodes.length === 0) return "no node has reported yet";
  const eligible: number[] = [];
  for (let slot = 0; slot < placement.blocked.length; slot++)
    if (placement.blocked[slot] !== 1) eligible.push(slot);
  if (eligible.length === 0) {
    const blocked = new Map<string, string[]>();
    placement.reasons.forEach((reason, slot) => {
      const names = blocked.get(reason ?? "") ?? [];
      names.push(index.nodes[slot]?.node.name ?? "");
      blocked.set(reason ?? "", names);
    });
    const groups = [...blocked].map(([reason, names]) => `${listed(names)}: ${reason}`);
    return `no node may run it: ${groups.join("; ")}`;
  }

  const free = (slot: number, d: number) => Math.max(0, room.free(slot, d));
  const most = (d: number) => {
    let best = eligible[0] ?? 0;
    for (const slot of eligible) if (free(slot, d) > free(best, d)) best = slot;
    return best;
  };
  const name = (slot: number) => index.nodes[slot]?.node.name ?? "";
  const asked: [number, number][] = [
    [0, need.memoryGB],
    [1, need.cpuCores],
    [2, need.gpus],
  ];
  for (const [d, wants] of asked) {
    if (wants <= 0) continue;
    const slot = most(d);
    const has = free(slot, d);
    if (has >= wants) continue;
    if (d === 2 && eligible.every((s) => (index.capacity[s * DIMENSIONS + 2] ?? 0) === 0))
      return `no node fits: needs ${amountOf(2, wants)}, and no node it may use has one`;
    return `no node fits: needs ${amountOf(d, wants)}, the most free is ${amountOf(d, has)} on ${name(slot)}`;
  }
  const slot = most(0);
  const needs = asked.filter(([, wants]) => wants > 0).map(([d, wants]) => amountOf(d, wants));
  const has = asked.filter(([, wants]) => wants > 0).map(([d]) => amountOf(d, free(slot, d)));
  return `no node fits: needs ${needs.join(", ")} on one node; the roomiest, ${name(slot)}, has ${has.join(", ")} free`;
}

function amountOf(d: number, n: number): string {
  const shown = Number.isInteger(n) ? String(n) : n.toFixed(1);
  if (d === 0) return `${shown} GB`;
  const what = d === 1 ? "core" : "GPU";
  return `${shown} ${what}${n === 1 ? "" : "s"}`;
}

function listed(names: readonly string[]): string {
  const shown = names.slice(0, NAMED).join(", ");
  return names.length > NAMED ? `${shown} and ${names.length - NAMED} more` : shown;
}
