// What the servers a spec starts as its own child process (auth-server.ts, weights-server.ts)
// share: their tokens, given by the spec in LLMGW_E2E_TOKENS, and a copy of the built dashboard.
import { cp } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { DeclaredToken } from "@llmgw/api/testing";

/** LLMGW_E2E_TOKENS; at least one, or the server would run open. */
export function tokensFromEnv(): DeclaredToken[] {
  const tokens = JSON.parse(process.env.LLMGW_E2E_TOKENS ?? "[]") as DeclaredToken[];
  if (tokens.length === 0) throw new Error("LLMGW_E2E_TOKENS names no token");
  return tokens;
}

/** Copies apps/web/dist into `dataDir`, so a rebuild meanwhile cannot take the pages away. */
export async function copyDashboard(dataDir: string): Promise<string> {
  const webDist = join(dataDir, "web");
  await cp(fileURLToPath(new URL("../apps/web/dist", import.meta.url)), webDist, { recursive: true });
  return webDist;
}
