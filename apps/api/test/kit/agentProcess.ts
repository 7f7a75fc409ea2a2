import { spawn } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";

// A real `llmgw agent` process whose llama.cpp is the test engine (llamaEngine.ts), for the tests
// of weights reaching a node end to end (SPEC §8): the Vitest one in apps/cli and the browser one
// in e2e. It runs through the `llmgw` command, as an operator starts it, so no test depends on
// where the agent's modules live.

const ROOT = fileURLToPath(new URL("../../../..", import.meta.url));
const ENGINE = fileURLToPath(new URL("./llamaEngine.ts", import.meta.url));

/** The agent's `--engine-command` for llama.cpp: the test engine on the cached file. */
export const llamaEngineCommand = `llamacpp=${process.execPath} --import tsx ${ENGINE} --model {path} --host {host} --port {port}`;

export type AgentProcess = {
  /** What it has written so far (JSON log lines), for a failing test to show. */
  output(): string;
  /** SIGTERM, which stops its engines too, and waits for it to exit. */
  stop(): Promise<void>;
};

/**
 * Starts `llmgw agent` for node `node` against `server`, with its agent token, a heartbeat every
 * half second (a replica's progress shows without waiting), its cache in `cacheDir`, and engines
 * listening on 127.0.0.1.
 */
export function startAgentProcess(options: {
  server: string;
  node: string;
  token: string;
  cacheDir: string;
}): AgentProcess {
  const { server, node, token, cacheDir } = options;
  const child = spawn(
    process.execPath,
    [
      "scripts/llmgw.mjs",
      "agent",
      ...["--server", server, "--name", node, "--interval", "0.5"],
      ...["--cache-dir", cacheDir, "--advertise-host", "127.0.0.1"],
      ...["--engine-command", llamaEngineCommand, "--log-format", "json"],
    ],
    { cwd: ROOT, env: { ...process.env, LLMGW_TOKEN: token }, stdio: ["ignore", "pipe", "pipe"] },
  );
  let output = "";
  const collect = (chunk: Buffer) => {
    output += chunk.toString("utf8");
  };
  child.stdout?.on("data", collect);
  child.stderr?.on("data", collect);
  return {
    output: () => output,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = once(child, "exit");
      child.kill("SIGTERM");
      await exited;
    },
  };
}
