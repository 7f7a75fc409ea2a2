import { z } from "zod";

/**
 * How a node joins this server (`GET /api/v1/install`, SPEC §5 "Joining a node takes one line"):
 * the dashboard's "Add a node" and upgrade lines are built from it.
 */
export const joinInfoSchema = z.object({
  /**
   * The server's version: the agent it hands out is of this version, and a node whose
   * `agentVersion` differs runs another. Null when the server was started without its agent.
   */
  version: z.string().nullable(),
  /** The address install.sh names: `mirror.baseUrl` when the configuration sets it, else this request's. */
  server: z.string(),
  serverFrom: z.enum(["mirror.baseUrl", "request"]),
  /** The one-file agent the server hands out; null when it has none (started without it). */
  agent: z.object({ bytes: z.int().min(0), sha256: z.string() }).nullable(),
});
export type JoinInfo = z.infer<typeof joinInfoSchema>;

/** What the dashboard shows in place of a token it does not have. */
export const TOKEN_PLACEHOLDER = "<agent token>";

/** A word the shell reads as itself: bare when it is plain, else in single quotes. */
export function shellWord(word: string): string {
  return /^[A-Za-z0-9_./:=@%+,-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

/**
 * The one line that joins a machine to the server at `server` (or upgrades its agent: the same
 * line run again). `token` is the agent token (or TOKEN_PLACEHOLDER), null on a server without
 * tokens; `name` the node's name, null for the machine's host name.
 */
export function joinCommand(options: { server: string; token: string | null; name: string | null }): string {
  const flags = [
    ...(options.token === null ? [] : ["--token", options.token]),
    ...(options.name === null ? [] : ["--name", options.name]),
  ];
  const script = shellWord(`${options.server.replace(/\/+$/, "")}/install.sh`);
  return [`curl -fsSL ${script} | sh -s --`, ...flags.map(shellWord)].join(" ");
}

/**
 * The `llmgw ctl` line that makes an agent token for node `name`: the token step of joining, on a
 * server with tokens.
 */
export function agentTokenCommand(server: string, name: string): string {
  const node = shellWord(name);
  return `llmgw ctl token create --name ${node} --role agent --node ${node} --server ${shellWord(server)}`;
}

/** Whether a node runs another version of the agent than the server hands out. */
export function agentOutdated(agentVersion: string, serverVersion: string | null): boolean {
  return serverVersion !== null && agentVersion !== serverVersion;
}
