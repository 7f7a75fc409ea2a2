// What the servers a spec starts as its own child process (auth-server.ts, weights-server.ts)
// share: their tokens, given by the spec in LLMGW_E2E_TOKENS, and a copy of the built dashboard.
import { cp } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/** A token as llmgw.yaml declares it: the spec keeps the secret, the file its SHA-256. */
export type TokenLine = { name: string; role: string; sha256: string; node?: string };

/** LLMGW_E2E_TOKENS; at least one, or the server would run open. */
export function tokensFromEnv(): TokenLine[] {
  const tokens = JSON.parse(process.env.LLMGW_E2E_TOKENS ?? "[]") as TokenLine[];
  if (tokens.length === 0) throw new Error("LLMGW_E2E_TOKENS names no token");
  return tokens;
}

/** llmgw.yaml's `tokens:` section; an agent token names its node. */
export function tokensYaml(tokens: TokenLine[]): string {
  const lines = tokens.map(({ name, role, sha256, node }) =>
    node === undefined
      ? `  - { name: ${name}, role: ${role}, sha256: ${sha256} }`
      : `  - { name: ${name}, role: ${role}, node: ${node}, sha256: ${sha256} }`,
  );
  return `tokens:\n${lines.join("\n")}\n`;
}

/** Copies apps/web/dist into `dataDir`, so a rebuild meanwhile cannot take the pages away. */
export async function copyDashboard(dataDir: string): Promise<string> {
  const webDist = join(dataDir, "web");
  await cp(fileURLToPath(new URL("../apps/web/dist", import.meta.url)), webDist, { recursive: true });
  return webDist;
}
