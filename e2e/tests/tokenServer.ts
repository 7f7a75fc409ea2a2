import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { newToken, sha256Hex } from "@llmgw/api/testing";
import type { Page } from "@playwright/test";

// A server WITH tokens (the other specs share one without), for the specs about signing in and
// tokens, and about weights reaching a real agent: auth-server.ts (or another such script) as a
// child process on a port of its own, its tokens from llmgw.yaml.

export const newSecret = newToken;

export type TokenServer = { url: string; stop(): Promise<void> };

/**
 * Starts `script` with `tokens` (name, role, an agent token's node, and the secret whose hash the
 * file declares). `ready`: the line that says it may be used, its URL captured (a script that
 * seeds after the server is up prints its own).
 */
export async function startTokenServer(
  tokens: { name: string; role: string; node?: string; secret: string }[],
  env: Record<string, string> = {},
  script = "auth-server.ts",
  ready = /llmgw ready on (http:\/\/\S+)/,
): Promise<TokenServer> {
  const lines = tokens.map(({ secret, ...token }) => ({
    ...token,
    sha256: sha256Hex(secret),
  }));
  const child: ChildProcess = spawn(process.execPath, ["--import", "tsx", script], {
    cwd: fileURLToPath(new URL("..", import.meta.url)),
    env: { ...process.env, ...env, LLMGW_E2E_TOKENS: JSON.stringify(lines) },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let output = "";
    const timer = setTimeout(() => reject(new Error(`${script} did not start:\n${output}`)), 240_000);
    const read = (chunk: Buffer) => {
      output += chunk.toString();
      const url = ready.exec(output)?.[1];
      if (url) {
        clearTimeout(timer);
        resolve(url);
      }
    };
    child.stdout?.on("data", read);
    child.stderr?.on("data", read);
    child.once("exit", (code) => reject(new Error(`${script} exited (${code}):\n${output}`)));
  });
  return {
    url,
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      await exited;
    },
  };
}

/** Signs in through the sign-in form (the page's own, or the one `within` holds). */
export async function signIn(page: Page, token: string, within = page.getByTestId("sign-in-form")) {
  await within.getByLabel("Access token").fill(token);
  await within.getByRole("button", { name: "Sign in" }).click();
}
