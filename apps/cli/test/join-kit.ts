import { execFileSync, spawn } from "node:child_process";
import { chmod, mkdir, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";

// What the tests of joining a node (SPEC §5) share: a second machine as a folder (its HOME, its
// PATH), a stand-in llama-server on that PATH, and install.sh run the way a user runs it.

/**
 * A stand-in for llama-server, in plain JavaScript (the node has nothing but Node): it listens where
 * the agent says, answers /health, and answers a chat completion naming the weights it was given.
 */
const ENGINE = `#!${process.execPath}
const { createServer } = require("node:http");
const { basename } = require("node:path");
const arg = (name) => process.argv[process.argv.indexOf(name) + 1];
const model = arg("--model");
createServer((req, res) => {
  if (req.url === "/health") return res.writeHead(200).end("{}");
  let body = "";
  req.on("data", (chunk) => (body += chunk));
  req.on("end", () => {
    const content = "stand-in llama-server on " + basename(model);
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({
      id: "chatcmpl-1", object: "chat.completion", created: 0, model: JSON.parse(body).model,
      choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: "stop" }],
      usage: { prompt_tokens: 1, completion_tokens: 5, total_tokens: 6 },
    }));
  });
}).listen(Number(arg("--port")), arg("--host"));
process.on("SIGTERM", () => process.exit(0));
`;

export type Machine = {
  /** Its HOME: the folder the node's files go to. */
  home: string;
  /** Its PATH: its own bin (llama-server), then Node's and the system's. */
  path: string;
};

/** A second machine in `dir`: a HOME of its own, and llama-server (the stand-in) on its PATH. */
export async function machineIn(dir: string): Promise<Machine> {
  const bin = join(dir, "bin");
  await mkdir(bin, { recursive: true });
  await writeFile(join(bin, "llama-server"), ENGINE);
  await chmod(join(bin, "llama-server"), 0o755);
  const nodeDir = process.execPath.slice(0, process.execPath.lastIndexOf("/"));
  return { home: dir, path: [bin, nodeDir, "/usr/local/bin", "/usr/bin", "/bin"].join(":") };
}

/**
 * A folder of links to the commands `names` (found on this PATH): a PATH holding exactly those,
 * to run install.sh without node, or without curl and wget.
 */
export async function toolsIn(dir: string, names: readonly string[]): Promise<string> {
  await mkdir(dir, { recursive: true });
  for (const name of names) {
    const found = execFileSync("sh", ["-c", `command -v ${name}`], { encoding: "utf8" }).trim();
    await symlink(found, join(dir, name));
  }
  return dir;
}

/** What install.sh needs besides node and curl or wget. */
export const SCRIPT_TOOLS = ["id", "mkdir", "chmod", "mv", "rm", "cat", "sed", "tr", "head", "tail"];

export type Ran = { code: number | null; stdout: string; stderr: string };

/** Runs a shell command line (`curl … | sh -s -- …`) with exactly `env`. */
export function shell(line: string, env: NodeJS.ProcessEnv): Promise<Ran> {
  return ran(spawn("/bin/sh", ["-c", line], { env, stdio: ["ignore", "pipe", "pipe"] }));
}

/** Pipes `script` to `sh -s -- …args` (Debian's sh is dash), as `curl … | sh -s -- …` does. */
export function piped(script: string, args: readonly string[], env: NodeJS.ProcessEnv): Promise<Ran> {
  const child = spawn("/bin/sh", ["-s", "--", ...args], { env, stdio: ["pipe", "pipe", "pipe"] });
  child.stdin.end(script);
  return ran(child);
}

function ran(child: ReturnType<typeof spawn>): Promise<Ran> {
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    stdout += chunk.toString("utf8");
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString("utf8");
  });
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

/** The requests the server has answered on `route` with `status`, from its own /metrics. */
export async function answered(server: string, token: string, route: string, status = 200): Promise<number> {
  const res = await fetch(`${server}/metrics`, { headers: { authorization: `Bearer ${token}` } });
  const line = new RegExp(
    `^llmgw_http_requests_total\\{method="GET",route="${route.replaceAll(".", "\\.")}",status="${status}"\\} (\\d+)$`,
    "m",
  );
  return Number(line.exec(await res.text())?.[1] ?? 0);
}
