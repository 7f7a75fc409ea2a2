import type { TokenLimits } from "@llmgw/contract";
import type { StoredToken } from "@llmgw/store";
import { type Role, roleSchema } from "../config";
import type { Deps } from "../deps";
import { MAX_SECRET_LENGTH, sameDigest, sha256Hex } from "./secrets";

/** A token the server knows, from the file or the store. Never carries the secret. */
export type KnownToken = {
  name: string;
  role: Role;
  /** Lower-case hex SHA-256 of the secret. Stays on the server: no response carries it. */
  sha256: string;
  origin: "config" | "runtime";
  createdAt: string | null;
  createdBy: string | null;
  lastUsedAt: string | null;
  /** The node an agent token was made for (the file's `node`, or given at creation); null: bound on first use. */
  node: string | null;
} & TokenLimits;

/** Last-used times are written at most this often per token: a busy agent must not write per beat. */
const TOUCH_EVERY_MS = 60_000;

/**
 * The tokens of llmgw.yaml (read-only, fixed for the process's life) and those created through the
 * API (in the store, so every process sharing a PostgreSQL sees a creation or revocation at once).
 */
export class TokenBook {
  /** Config tokens have no row to write to: their last use is this process's memory. */
  readonly #configUse = new Map<string, string>();
  readonly #touched = new Map<string, number>();

  constructor(private readonly deps: Deps) {}

  /** From the first token on (file or store), every request but the public ones needs one. */
  async required(): Promise<boolean> {
    return this.deps.config.tokens.length > 0 || (await this.deps.store.tokens.any());
  }

  /** The token whose secret this is, or null. */
  async bySecret(secret: string): Promise<KnownToken | null> {
    if (secret.length === 0 || secret.length > MAX_SECRET_LENGTH) return null;
    const digest = sha256Hex(secret);
    // Every configured hash is compared, whichever matches: the time taken does not say which.
    let found: KnownToken | null = null;
    for (const token of this.deps.config.tokens) {
      if (sameDigest(digest, token.sha256)) found ??= this.#fromConfig(token);
    }
    if (found) return found;
    // Looked up by its hash, which is of a secret the caller holds: the index reveals nothing of a
    // stored token. The constant-time comparison after it keeps the rule the same for both kinds.
    const stored = await this.deps.store.tokens.findByHash(digest);
    return stored && sameDigest(digest, stored.sha256) ? fromStore(stored) : null;
  }

  async byName(name: string): Promise<KnownToken | null> {
    const configured = this.deps.config.tokens.find((t) => t.name === name);
    if (configured) return this.#fromConfig(configured);
    const stored = await this.deps.store.tokens.get(name);
    return stored ? fromStore(stored) : null;
  }

  isConfigured(name: string): boolean {
    return this.deps.config.tokens.some((t) => t.name === name);
  }

  /** The file's tokens first, then the store's, each by name. */
  async list(): Promise<KnownToken[]> {
    const stored = await this.deps.store.tokens.list();
    const configured = [...this.deps.config.tokens]
      .sort((a, b) => a.name.localeCompare(b.name))
      .map((t) => this.#fromConfig(t));
    return [...configured, ...stored.flatMap((t) => fromStore(t) ?? [])];
  }

  /** Notes a successful use; written to the store at most once a minute per token. */
  async used(token: KnownToken): Promise<void> {
    const now = this.deps.now();
    if (token.origin === "config") {
      this.#configUse.set(token.name, now.toISOString());
      return;
    }
    const last = this.#touched.get(token.name) ?? 0;
    if (now.getTime() - last < TOUCH_EVERY_MS) return;
    this.#touched.set(token.name, now.getTime());
    await this.deps.store.tokens.touch(token.name, now.toISOString());
  }

  #fromConfig(token: Config["tokens"][number]): KnownToken {
    return {
      name: token.name,
      role: token.role,
      sha256: token.sha256,
      origin: "config",
      createdAt: null,
      createdBy: "config",
      lastUsedAt: this.#configUse.get(token.name) ?? null,
      node: token.node ?? null,
      models: token.models ?? null,
      requestsPerMinute: token.requestsPerMinute ?? null,
      concurrency: token.concurrency ?? null,
      tokensPerDay: token.tokensPerDay ?? null,
    };
  }
}

type Config = Deps["config"];

/** A stored row whose role this version does not know is no token at all (fail closed). */
function fromStore(row: StoredToken): KnownToken | null {
  const role = roleSchema.safeParse(row.role);
  if (!role.success) return null;
  return {
    name: row.name,
    role: role.data,
    sha256: row.sha256,
    origin: "runtime",
    createdAt: row.createdAt,
    createdBy: row.createdBy,
    lastUsedAt: row.lastUsedAt,
    node: row.node,
    models: row.models,
    requestsPerMinute: row.requestsPerMinute,
    concurrency: row.concurrency,
    tokensPerDay: row.tokensPerDay,
  };
}
