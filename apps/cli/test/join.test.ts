import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { until } from "@llmgw/agent/testing";
import { loadConfig, type RunningServer, silentLogger, startServer } from "@llmgw/api";
import { newToken, sha256Hex, tokensYaml, writeTinyLlamaGguf } from "@llmgw/api/testing";
import { answer, connect } from "@llmgw/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { agentSource } from "../src/serve";
import { serveMirrored } from "./ctl-harness";
import { answered, type Machine, machineIn, shell } from "./join-kit";

// SPEC §5 "Joining a node takes one line", as a user does it: a second machine that is a folder
// outside the workspace (no node_modules above it, HOME there) with Node and a llama-server on its
// PATH runs `curl -fsSL <server>/install.sh | sh -s -- …`, then the command it prints. The agent
// that lands there joins the server, downloads a mirrored GGUF into ~/.cache/llmgw/weights, starts
// the engine on it, reports it ready, and a request through the gateway reaches that engine.

const SECRET = { admin: newToken(), agent: newToken() };
const NODE = "joined-1";
let root = "";
let server: RunningServer;
let machine: Machine;
let agent: ChildProcess | null = null;
let agentOutput = "";

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "llmgw-join-"));
  const mirrored = join(root, "server", "mirror", "tiny", "v1", "tiny.gguf");
  await mkdir(dirname(mirrored), { recursive: true });
  await writeTinyLlamaGguf(mirrored);
  const file = join(root, "server", "llmgw.yaml");
  await writeFile(
    file,
    `heartbeatSeconds: 1\n${tokensYaml([
      { name: "ops", role: "admin", sha256: sha256Hex(SECRET.admin) },
      { name: NODE, role: "agent", node: NODE, sha256: sha256Hex(SECRET.agent) },
    ])}`,
  );
  server = await startServer(
    loadConfig({ config: file, dataDir: join(root, "server"), listen: "127.0.0.1:0" }, {}),
    { log: silentLogger(), agent: agentSource(silentLogger()) },
  );
  machine = await machineIn(join(root, "machine"));
}, 120_000);

afterAll(async () => {
  if (agent && agent.exitCode === null && agent.signalCode === null) {
    const exited = once(agent, "exit");
    agent.kill("SIGTERM");
    await exited;
  }
  await server?.close();
  if (root) await rm(root, { recursive: true, force: true });
});

/** The one line, with the node's token and name, into a prefix of the machine's own. */
const oneLine = () =>
  `curl -fsSL ${server.url}/install.sh | sh -s -- --token ${SECRET.agent} --name ${NODE} --prefix ${machine.home}/llmgw --no-service`;
const env = () => ({ PATH: machine.path, HOME: machine.home });

describe("a node joins in one line (SPEC §5)", () => {
  it("lands agent.mjs and prints the command that runs it, never the token", async () => {
    for (let up = machine.home; up !== dirname(up); up = dirname(up)) {
      expect(existsSync(join(up, "node_modules")), `${up}/node_modules`).toBe(false);
    }
    const ran = await shell(oneLine(), env());
    expect(ran.stderr).toBe("");
    expect(ran.code).toBe(0);
    const installed = join(machine.home, "llmgw", "agent.mjs");
    expect((await stat(installed)).mode & 0o777).toBe(0o644);
    expect(ran.stdout).toContain(`llmgw: agent.mjs 0.1.0 is in ${machine.home}/llmgw\n`);
    expect(ran.stdout).toContain(
      `\n  LLMGW_TOKEN='<agent token>' ${process.execPath} ${installed} --server ${server.url} --name ${NODE}\n`,
    );
    expect(ran.stdout).not.toContain(SECRET.agent);
  }, 60_000);

  it("downloads nothing when run again with the server's version in place", async () => {
    const before = await answered(server.url, SECRET.admin, "/install/agent.mjs");
    expect(before).toBe(1);
    const ran = await shell(oneLine(), env());
    expect(ran.code).toBe(0);
    expect(ran.stdout).toContain(
      `llmgw: agent.mjs 0.1.0 is already in ${machine.home}/llmgw: nothing to download\n`,
    );
    expect(await answered(server.url, SECRET.admin, "/install/agent.mjs")).toBe(before);
  }, 60_000);

  it("says once, whatever the interval, that the server refuses a wrong token", async () => {
    const installed = join(machine.home, "llmgw", "agent.mjs");
    const wrong = spawn(process.execPath, [installed, "--server", server.url, "--interval", "0.1"], {
      cwd: machine.home,
      env: { ...env(), LLMGW_TOKEN: "llmgw_not-a-token", LLMGW_NAME: "wrong-token" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    wrong.stdout?.on("data", (chunk: Buffer) => {
      output += chunk.toString("utf8");
    });
    await until(async () => output.includes("refused the heartbeat"), "the refusal in the agent's log");
    // Several more beats refused, none said again.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const exited = once(wrong, "exit");
    wrong.kill("SIGTERM");
    await exited;
    const said = output.split("\n").filter((line) => line.includes("refused the heartbeat"));
    expect(said).toHaveLength(1);
    expect(said[0]).toContain("the server refused the heartbeat: 401");
    expect(output).not.toContain("llmgw_not-a-token");
  }, 60_000);

  it("runs the printed command: the node joins, caches the weights, serves the model through the gateway", async () => {
    const { api } = connect({ server: server.url, token: SECRET.admin });
    await serveMirrored(api, "tiny", 256);

    const printed = (await shell(oneLine(), env())).stdout
      .split("\n")
      .find((line) => line.startsWith("  LLMGW_TOKEN="));
    // What the user does with it: their token in place of the placeholder.
    const command = printed?.replace("LLMGW_TOKEN='<agent token>' ", "").trim() ?? "";
    expect(command).toMatch(/agent\.mjs --server /);
    agent = spawn("/bin/sh", ["-c", `exec ${command}`], {
      cwd: machine.home,
      env: { ...env(), LLMGW_TOKEN: SECRET.agent },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const collect = (chunk: Buffer) => {
      agentOutput += chunk.toString("utf8");
    };
    agent.stdout?.on("data", collect);
    agent.stderr?.on("data", collect);

    await until(
      async () => {
        const replica = (await answer(api.fleet.replicas.$get())).find((r) => r.model === "tiny");
        if (replica?.state === "failed")
          throw new Error(`the replica failed: ${replica.reason}\n${agentOutput}`);
        return replica?.state === "ready" && replica.node === NODE && replica.endpoint !== null;
      },
      "a ready replica of tiny on the joined node",
      90_000,
    );
    const node = (await answer(api.fleet.nodes.$get())).find((n) => n.name === NODE);
    expect(node).toMatchObject({ state: "ready", agentVersion: "0.1.0", engines: ["llamacpp"] });
    expect(existsSync(join(machine.home, ".cache", "llmgw", "weights", "tiny", "v1", "tiny.gguf"))).toBe(
      true,
    );

    const res = await fetch(`${server.url}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${SECRET.admin}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "tiny", messages: [{ role: "user", content: "hello" }] }),
    });
    expect(res.status).toBe(200);
    const completion = (await res.json()) as { choices: { message: { content: string } }[] };
    expect(completion.choices[0]?.message.content).toBe("stand-in llama-server on tiny.gguf");
    expect(agentOutput).not.toContain(SECRET.agent);
  }, 150_000);
});
