import { readFileSync } from "node:fs";

// install.sh (SPEC §5): the template beside this file, with this server's address, the agent's
// version and SHA-256, and whether tokens are required written in. Every value is checked to be
// plain (no quote, no space, no `$`): the script puts it in single quotes and writes it into a
// systemd unit and an environment file.

const TEMPLATE_URL = new URL("./install.sh", import.meta.url);
let template: string | null = null;

export type ScriptFacts = {
  /** The address nodes reach this server at, without a trailing slash. */
  server: string;
  serverFrom: "mirror.baseUrl" | "request";
  version: string;
  sha256: string;
  tokensRequired: boolean;
};

const FROM_WORDS: Record<ScriptFacts["serverFrom"], string> = {
  "mirror.baseUrl": "mirror.baseUrl in the server's llmgw.yaml",
  request:
    "this script's own request (the server's llmgw.yaml sets no mirror.baseUrl; set it when nodes reach the server at another address)",
};

/** An http(s) URL the script may hold as it is: a host, a port, a plain path. */
export function plainServerUrl(url: string): boolean {
  return /^https?:\/\/(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)(:\d{1,5})?(\/[A-Za-z0-9._~/-]*)?$/.test(url);
}

export function installScript(facts: ScriptFacts): string {
  if (!plainServerUrl(facts.server)) throw new Error(`${facts.server} is not a plain http(s) URL`);
  if (!/^[A-Za-z0-9.+-]{1,64}$/.test(facts.version)) throw new Error(`version ${facts.version} is not plain`);
  if (!/^[0-9a-f]{64}$/.test(facts.sha256)) throw new Error("the agent's SHA-256 is not 64 hex digits");
  template ??= readFileSync(TEMPLATE_URL, "utf8");
  const values: Record<string, string> = {
    "@SERVER@": facts.server,
    "@SERVER_FROM@": FROM_WORDS[facts.serverFrom],
    "@VERSION@": facts.version,
    "@SHA256@": facts.sha256,
    "@TOKENS_REQUIRED@": facts.tokensRequired ? "yes" : "no",
  };
  return template.replace(/@[A-Z_0-9]+@/g, (placeholder) => values[placeholder] ?? placeholder);
}
