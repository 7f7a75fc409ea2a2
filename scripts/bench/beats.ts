// NODES simulated agents (beatFleet.ts) posting heartbeats to SERVER, from one process:
//   beats.ts SERVER NODES INTERVAL
// Each {cmd: "go", rounds, change} sends `rounds` paced rounds, every node once a round, node n
// at n/NODES of each INTERVAL seconds (an even NODES/INTERVAL per second, whatever the answers
// take), waits for every answer and replies with the beats' figures. `change` moves every beat's
// free memory (and on every tenth node a replica's state); a node's first round is its first beats.
import { BeatFleet } from "./beatFleet";
import { percentile } from "./report";

const [server = "", nodesText = "5000", intervalText = "5"] = process.argv.slice(2);
const nodes = Number(nodesText);
const intervalMs = Number(intervalText) * 1000;
const fleet = new BeatFleet(server, { prefix: "beat", nodes, perNode: 2, models: 500 });

export type Paced = {
  sent: number;
  seconds: number;
  rate: number;
  p50: number;
  p99: number;
  errors: number;
  /** Sent more than 100 ms after their time: the sender, not the server, fell behind. */
  late: number;
  /** Beats whose body differed from the node's last one (first beats, changes, placements run). */
  moved: number;
};

async function paced(rounds: number, change: boolean): Promise<Paced> {
  const latencies: number[] = [];
  let errors = 0;
  let late = 0;
  let moved = 0;
  const start = performance.now();
  const total = rounds * nodes;
  const inflight: Promise<void>[] = [];
  for (let k = 0; k < total; k++) {
    const due = start + (k * intervalMs) / nodes;
    const wait = due - performance.now();
    if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
    else if (wait < -100) late++;
    inflight.push(
      fleet.beat(k % nodes, change).then(
        (beat) => {
          latencies.push(beat.ms);
          if (!beat.same) moved++;
        },
        (err: unknown) => {
          if (errors++ < 3) console.error(`beats: ${err instanceof Error ? err.message : String(err)}`);
        },
      ),
    );
  }
  await Promise.all(inflight);
  const seconds = (performance.now() - start) / 1000;
  return {
    sent: total,
    seconds,
    rate: total / seconds,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    errors,
    late,
    moved,
  };
}

process.on("message", (message: { cmd: string; rounds: number; change: boolean }) => {
  if (message.cmd === "go")
    void paced(message.rounds, message.change).then((figures) => process.send?.(figures));
});
process.once("SIGTERM", () => {
  fleet.close();
  process.exit(0);
});
process.send?.({ ready: true });
