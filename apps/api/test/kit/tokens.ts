// Tokens as `llmgw.yaml` declares them, for tests and browser specs that start a server of their own.
export { newToken, sha256Hex } from "../../src/auth/secrets";

/** One `tokens:` line: the file keeps the secret's SHA-256, never the secret; an agent token names its node. */
export type DeclaredToken = { name: string; role: string; sha256: string; node?: string | undefined };

/** llmgw.yaml's `tokens:` section. */
export function tokensYaml(tokens: readonly DeclaredToken[]): string {
  const lines = tokens.map(({ name, role, sha256, node }) =>
    node === undefined
      ? `  - { name: ${name}, role: ${role}, sha256: ${sha256} }`
      : `  - { name: ${name}, role: ${role}, node: ${node}, sha256: ${sha256} }`,
  );
  return `tokens:\n${lines.join("\n")}\n`;
}
