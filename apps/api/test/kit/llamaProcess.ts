import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { dirname } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

// Starts llamaEngine.ts as its own process, the way an agent starts an engine command, and waits
// until its /health says the model is loaded.

const SCRIPT = fileURLToPath(new URL("./llamaEngine.ts", import.meta.url));

export type LlamaEngineProcess = {
  /** Its base URL (http://127.0.0.1:port), a replica's `endpoint`. */
  url: string;
  /** Stops it (SIGTERM) and waits for it to exit. */
  close(): Promise<void>;
};

/** The test engine on 127.0.0.1, on a port the OS picks, ready (its /health answers 200). */
export async function startLlamaEngine(modelPath: string, timeoutMs = 60_000): Promise<LlamaEngineProcess> {
  const child = spawn(
    process.execPath,
    ["--import", "tsx", SCRIPT, "--model", modelPath, "--host", "127.0.0.1", "--port", "0"],
    { cwd: dirname(SCRIPT), stdio: ["ignore", "pipe", "pipe"] },
  );
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr = (stderr + chunk.toString("utf8")).slice(-4000);
  });
  const close = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill("SIGTERM");
    await once(child, "exit");
  };
  try {
    const url = await listeningUrl(child, () => stderr);
    await healthy(url, child, () => stderr, Date.now() + timeoutMs);
    return { url, close };
  } catch (err) {
    await close();
    throw err;
  }
}

async function listeningUrl(child: ChildProcess, stderr: () => string): Promise<string> {
  if (!child.stdout) throw new Error("the engine has no stdout");
  const exited = once(child, "exit").then(([code]) => {
    throw new Error(`the engine exited (${code}) before listening: ${stderr()}`);
  });
  const listening = (async () => {
    for await (const line of createInterface({ input: child.stdout as NodeJS.ReadableStream })) {
      const found = /listening on (http:\/\/\S+)/.exec(line);
      if (found?.[1]) return found[1];
    }
    throw new Error(`the engine closed its output before listening: ${stderr()}`);
  })();
  const url = await Promise.race([listening, exited]);
  // Closing the line reader paused stdout; what the engine writes later is read and dropped, so a
  // full pipe never blocks it.
  child.stdout.resume();
  return url;
}

/** Polls /health as an agent does (SPEC §8.7): 503 while the model loads, 200 once it is loaded. */
async function healthy(url: string, child: ChildProcess, stderr: () => string, deadline: number) {
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the engine exited (${child.exitCode}): ${stderr()}`);
    const status = await fetch(`${url}/health`).then(
      (res) => res.status,
      () => 0,
    );
    if (status === 200) return;
    if (Date.now() > deadline) throw new Error(`the engine at ${url} was not healthy in time: ${stderr()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
