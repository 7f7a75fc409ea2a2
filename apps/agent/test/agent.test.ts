import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { heartbeatReplicaSchema } from "@llmgw/domain";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type RunningAgent, runAgent } from "../src/loop";
import { probeMachine } from "../src/machine";
import { processEngines } from "../src/processes";
import { type DesiredReplica, Supervisor } from "../src/supervisor";
import { alive, desiredReplica, fakeControlPlane, recordingLog, replicaIn, until } from "./kit";

// A stand-in engine: listens on the port it is given, answers /health with 503 while it "loads"
// for 300 ms and 200 after, and writes its pid, argv and what it sees of the agent's environment
// where the test can find them.
const ENGINE = `
import { createServer } from "node:http";
import { writeFileSync } from "node:fs";
const arg = (name) => process.argv[process.argv.indexOf(name) + 1];
const env = Object.keys(process.env).filter((name) => name === "PATH" || name.startsWith("LLMGW_"));
writeFileSync(arg("--pid-file"), JSON.stringify({ pid: process.pid, argv: process.argv.slice(2), env }));
const started = Date.now();
createServer((req, res) => {
  res.writeHead(req.url === "/health" && Date.now() - started >= 300 ? 200 : 503).end();
}).listen(Number(arg("--port")), "127.0.0.1");
process.on("SIGTERM", () => process.exit(0));
`;

let dir: string;
let control: Awaited<ReturnType<typeof fakeControlPlane>>;
let agent: RunningAgent | undefined;
let supervisor: Supervisor;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "llmgw-agent-"));
  await writeFile(join(dir, "engine.mjs"), ENGINE);
  control = await fakeControlPlane();
});

afterEach(async () => {
  await agent?.stop();
  agent = undefined;
  await control.close();
  await rm(dir, { recursive: true, force: true });
  // Every beat of every test, its last one included, is one the server's schema takes.
  expect(control.invalid, "heartbeats the server would refuse").toEqual([]);
});

function startAgent(log = recordingLog(), engineCommand?: string) {
  const template =
    engineCommand ??
    `"${process.execPath}" "${join(dir, "engine.mjs")}" --port {port} --pid-file "${dir}/{id}.json" {args}`;
  supervisor = new Supervisor({
    runner: processEngines({ commands: new Map([["llamacpp", template]]) }),
    log,
    healthEveryMs: 50,
    backoffMs: 100,
    maxRestarts: 2,
    graceMs: 2000,
  });
  agent = runAgent({
    server: control.url,
    token: "agent-secret",
    machine: probeMachine({ name: "test-node", labels: { zone: "a" } }),
    supervisor,
    intervalSeconds: 0.2,
    log,
  });
  return log;
}

async function engineOf(id: string): Promise<{ pid: number; argv: string[]; env: string[] }> {
  let text = "";
  await until(async () => {
    text = await readFile(join(dir, `${id}.json`), "utf8").catch(() => "");
    return text !== "";
  }, `the engine of ${id} to start`);
  return JSON.parse(text) as { pid: number; argv: string[]; env: string[] };
}

describe("llmgw agent with a real engine process", () => {
  it("starts a desired replica, reports it starting then ready and measured, with the token", async () => {
    const replica = desiredReplica({ args: ["--ctx-size", "4096"] });
    control.state.desired = [replica];
    startAgent();

    const starting = await control.beat((b) => replicaIn(b, replica.id)?.state === "starting");
    const ready = await control.beat((b) => replicaIn(b, replica.id)?.state === "ready", starting);
    const reported = control.beats[ready] && replicaIn(control.beats[ready], replica.id);
    expect(reported).toMatchObject({ model: replica.model, profile: "cpu", state: "ready" });
    expect(reported?.measuredMemoryGB).toBeGreaterThan(0);
    // Where the gateway sends its requests: the port the engine was told to listen on.
    const port = (await engineOf(replica.id)).argv[(await engineOf(replica.id)).argv.indexOf("--port") + 1];
    expect(reported?.endpoint).toBe(`http://127.0.0.1:${port}`);
    const startingReport = control.beats[starting] && replicaIn(control.beats[starting], replica.id);
    expect(startingReport?.endpoint).toBeUndefined();

    const first = control.beats[0];
    expect(first?.authorization).toBe("Bearer agent-secret");
    expect(first?.node).toMatchObject({ name: "test-node", labels: { zone: "a" } });
    expect(first?.node.freeMemoryGB).toBeGreaterThan(0);
    // {args} stands for the profile's args, one word each.
    expect((await engineOf(replica.id)).argv.slice(-2)).toEqual(["--ctx-size", "4096"]);
  });

  it("stops a replica no longer desired: it leaves the report and its process is gone", async () => {
    const replica = desiredReplica();
    control.state.desired = [replica];
    startAgent();
    await control.beat((b) => replicaIn(b, replica.id)?.state === "ready");
    const { pid } = await engineOf(replica.id);

    control.state.desired = [];
    const from = control.beats.length;
    await control.beat(
      (b) => replicaIn(b, replica.id) === undefined,
      from,
      "the replica to leave the report",
    );
    await until(() => !alive(pid), "the engine process to end");
  });

  it("restarts an engine that dies: reported failed or starting, then ready again", async () => {
    const replica = desiredReplica();
    control.state.desired = [replica];
    const log = startAgent();
    await control.beat((b) => replicaIn(b, replica.id)?.state === "ready");
    const { pid } = await engineOf(replica.id);

    process.kill(pid, "SIGKILL");
    const down = await control.beat(
      (b) => ["failed", "starting"].includes(replicaIn(b, replica.id)?.state ?? ""),
      control.beats.length,
      "the dead engine to be reported",
    );
    await control.beat((b) => replicaIn(b, replica.id)?.state === "ready", down, "the engine ready again");
    expect((await engineOf(replica.id)).pid).not.toBe(pid);
    expect(log.lines.some((l) => l.includes("killed by SIGKILL; restarting"))).toBe(true);
  });

  it("keeps engines running while the server is away, says so once, and resumes", async () => {
    const replica = desiredReplica();
    control.state.desired = [replica];
    const log = startAgent();
    await control.beat((b) => replicaIn(b, replica.id)?.state === "ready");
    const { pid } = await engineOf(replica.id);

    control.state.down = true;
    await until(() => control.state.refused >= 3, "three heartbeats to fail");
    expect(alive(pid)).toBe(true);
    expect(log.lines.filter((l) => l.includes("cannot reach")).length).toBe(1);

    control.state.down = false;
    const back = control.beats.length;
    await control.beat((b) => replicaIn(b, replica.id)?.state === "ready", back, "heartbeats to resume");
    // The control plane has the beat before the agent reads its reply: wait for the agent's word.
    await until(() => log.lines.some((l) => l.includes("answers again")), "the agent to say so");
  });

  it("stops its engines when it stops, and says so in a last heartbeat", async () => {
    const replica = desiredReplica();
    control.state.desired = [replica];
    startAgent();
    await control.beat((b) => replicaIn(b, replica.id)?.state === "ready");
    const { pid } = await engineOf(replica.id);

    await agent?.stop();
    agent = undefined;
    expect(alive(pid)).toBe(false);
    expect(control.beats.at(-1)?.replicas).toEqual([]);
  });

  it("leaves a replica failed after the bounded restarts when its engine cannot start", async () => {
    const replica = desiredReplica();
    control.state.desired = [replica];
    const log = startAgent(recordingLog(), "llmgw-no-such-engine --port {port}");
    await control.beat((b) => replicaIn(b, replica.id)?.state === "failed");
    await until(() => log.lines.some((l) => l.includes("left failed after 2 restarts")), "giving up");
    expect(log.lines.filter((l) => l.includes("ENOENT")).length).toBe(3);
  });
});

describe("llmgw agent trusts the server with nothing of its node (SPEC §4)", () => {
  /** A replica this node refuses: failed with the reason, said once, its engine never started. */
  async function expectRefused(replica: DesiredReplica, reason: string) {
    control.state.desired = [replica];
    const log = startAgent();
    const failed = await control.beat((b) => replicaIn(b, replica.id)?.state === "failed");
    const reported = (await supervisor.report()).find((r) => r.id === replica.id);
    expect(reported).toMatchObject({ state: "failed", reason });
    // The heartbeat carries the reason once its contract does; until then the log says it.
    const onWire = control.beats[failed] && replicaIn(control.beats[failed], replica.id);
    expect(onWire?.reason).toBe("reason" in heartbeatReplicaSchema.shape ? reason : undefined);
    expect(log.lines.filter((l) => l.includes(reason))).toEqual([
      `warn replica ${replica.id} (${replica.model}): not started: ${reason}`,
    ]);
    // Still failed, never retried, a few beats on.
    await control.beat((b) => replicaIn(b, replica.id)?.state === "failed", failed + 3, "three more beats");
    expect(log.lines.filter((l) => l.includes(replica.id))).toHaveLength(1);
    expect(await readFile(join(dir, `${replica.id}.json`), "utf8").catch(() => null)).toBeNull();
  }

  it("refuses args that write files, naming the arg", async () => {
    const replica = desiredReplica({ args: ["--ctx-size", "4096", "--log-file", "/home/ops/.bashrc"] });
    await expectRefused(replica, 'refused arg "--log-file": it names a file, a directory or a URL');
  });

  it("refuses args that override what its command sets", async () => {
    const replica = desiredReplica({ args: ["--port", "22"] });
    await expectRefused(replica, 'refused arg "--port": the agent sets it');
  });

  it("refuses a source that is not an http(s) URL", async () => {
    const replica = desiredReplica({ source: "/etc/shadow" });
    await expectRefused(replica, 'refused source "/etc/shadow": weights come from an http(s) URL');
  });

  it.each(["constructor", "__proto__", "toString"])("knows no engine called %s", async (engine) => {
    const replica = desiredReplica({ engine });
    await expectRefused(replica, `no command for engine ${engine} on this node (see --engine-command)`);
  });

  it("starts engines without its environment: they never see LLMGW_TOKEN", async () => {
    const saved = process.env.LLMGW_TOKEN;
    process.env.LLMGW_TOKEN = "llmgw_from-the-environment";
    try {
      const replica = desiredReplica();
      control.state.desired = [replica];
      startAgent();
      await control.beat((b) => replicaIn(b, replica.id)?.state === "ready");
      expect((await engineOf(replica.id)).env).toEqual(["PATH"]);
    } finally {
      if (saved === undefined) delete process.env.LLMGW_TOKEN;
      else process.env.LLMGW_TOKEN = saved;
    }
  });
});
