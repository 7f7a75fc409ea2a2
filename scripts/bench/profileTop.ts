// The top frames of a V8 CPU profile (`node --cpu-prof`, or BENCH_PROF=<dir> pnpm bench), by self
// time and by total time, so a bench's hot path can be read without a browser:
//   tsx scripts/bench/profileTop.ts FILE.cpuprofile [N] [FILTER] [FROM_SECONDS]
// FILTER (a regular expression on the frame's URL) limits the "total" table to our own code;
// samples before FROM_SECONDS (start-up: the embedded store's initdb, seeding) are left out.
import { readFileSync } from "node:fs";

type Frame = { functionName: string; url: string; lineNumber: number };
type Node = { id: number; callFrame: Frame; children?: number[] };
type Profile = { nodes: Node[]; samples: number[]; timeDeltas: number[] };

const [file = "", top = "25", filter = "apps/|packages/", from = "0"] = process.argv.slice(2);
const profile = JSON.parse(readFileSync(file, "utf8")) as Profile;
// Start-up left out: its samples count as none.
{
  let at = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    at += profile.timeDeltas[i] ?? 0;
    if (at < Number(from) * 1e6) profile.timeDeltas[i] = 0;
  }
}
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map<number, number>();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);

const where = (f: Frame) => {
  const path = f.url.replace(/^file:\/\/.*?\/(node_modules\/\.pnpm\/[^/]+\/node_modules\/|wt\/[^/]+\/)/, "");
  return `${f.functionName || "(anonymous)"} ${path}:${f.lineNumber + 1}`;
};
const self = new Map<string, number>();
const total = new Map<string, number>();
let all = 0;
for (let i = 0; i < profile.samples.length; i++) {
  const dt = profile.timeDeltas[i] ?? 0;
  let node = byId.get(profile.samples[i] ?? -1);
  if (!node) continue;
  all += dt;
  const key = where(node.callFrame);
  self.set(key, (self.get(key) ?? 0) + dt);
  const seen = new Set<string>();
  for (let id: number | undefined = node.id; id !== undefined; id = parent.get(id)) {
    node = byId.get(id);
    if (!node) break;
    const k = where(node.callFrame);
    if (seen.has(k)) continue;
    seen.add(k);
    total.set(k, (total.get(k) ?? 0) + dt);
  }
}
const pct = (us: number) => `${((100 * us) / all).toFixed(1).padStart(5)}%`;
const print = (title: string, entries: [string, number][]) => {
  console.log(`\n${title}`);
  for (const [k, us] of entries.slice(0, Number(top)))
    console.log(`${pct(us)} ${(us / 1000).toFixed(0).padStart(7)} ms  ${k}`);
};
console.log(`${file}: ${(all / 1000).toFixed(0)} ms sampled`);
print(
  "self time",
  [...self].sort((a, b) => b[1] - a[1]),
);
const ours = new RegExp(filter);
print(
  `total time, frames matching /${filter}/`,
  [...total].filter(([k]) => ours.test(k)).sort((a, b) => b[1] - a[1]),
);

// Where the busy time went, by the outermost library or file of ours on each sample's stack.
const area = (url: string): string | null => {
  const lib = /node_modules\/\.pnpm\/(@?[^@/]+(?:\+[^@/]+)?)@/.exec(url)?.[1];
  if (lib) return lib.replace("+", "/");
  const ours = /\/(apps\/[^/]+\/src\/[^/]+|packages\/[^/]+\/src)/.exec(url)?.[1];
  if (ours) return ours;
  if (url.startsWith("node:")) return "node";
  return null;
};
const areas = new Map<string, number>();
let busy = 0;
for (let i = 0; i < profile.samples.length; i++) {
  const dt = profile.timeDeltas[i] ?? 0;
  const leaf = byId.get(profile.samples[i] ?? -1);
  if (!leaf || leaf.callFrame.functionName === "(idle)") continue;
  busy += dt;
  let outer = leaf.callFrame.functionName.startsWith("(") ? leaf.callFrame.functionName : "native";
  for (let id: number | undefined = leaf.id; id !== undefined; id = parent.get(id)) {
    const url = byId.get(id)?.callFrame.url ?? "";
    const found = area(url);
    if (found && found !== "node") outer = found;
  }
  areas.set(outer, (areas.get(outer) ?? 0) + dt);
}
console.log(`\nbusy ${(busy / 1000).toFixed(0)} ms, by the outermost area on the stack`);
for (const [k, us] of [...areas].sort((a, b) => b[1] - a[1]).slice(0, Number(top)))
  console.log(
    `${((100 * us) / busy).toFixed(1).padStart(5)}% ${(us / 1000).toFixed(0).padStart(7)} ms  ${k}`,
  );
