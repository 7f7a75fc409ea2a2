import type { AgentNode, StoreTx } from "@llmgw/store";
import type { Deps } from "../deps";
import { forbidden } from "../errors";
import type { KnownToken, TokenBook } from "./tokenBook";

/** A binding a heartbeat is to make, and the stale one (its token gone) it replaces. */
export type NewBinding = { binding: AgentNode; replaces: AgentNode | null };

/**
 * Which node each agent token speaks for (SPEC §4: agents are trusted with their own node and
 * nothing more). A token is bound to one node: the `node` it was made for, else the node of its
 * first accepted heartbeat; a node bound to one live token is refused to every other. A binding
 * whose token is gone (revoked, or replaced under its name) no longer holds its node.
 *
 * A confirmed binding is kept in memory: it changes only when its token is revoked, and a revoked
 * token is refused before it gets here, so a steady agent's beat asks the store nothing. Anything
 * else (a first beat, a beat for another node) is decided by the store.
 */
export class AgentBindings {
  readonly #confirmed = new Map<string, string>();

  constructor(
    private readonly deps: Deps,
    private readonly tokens: TokenBook,
  ) {}

  /**
   * Refuses (403) a heartbeat for a node this token may not report. Null when the token is bound
   * to this node already; else the binding the beat makes when it is accepted (`bind`, in its
   * transaction), so a refused beat binds nothing.
   */
  async check(token: KnownToken, node: string): Promise<NewBinding | null> {
    if (token.node !== null && token.node !== node) throw notYours(token, token.node, node);
    // The steady case, from memory; a refusal is always the store's word.
    if (this.#confirmed.get(token.sha256) === node) return null;
    const store = this.deps.store.agentNodes;
    const mine = await store.ofToken(token.sha256);
    if (mine) {
      if (mine.node !== node) throw notYours(token, mine.node, node);
      this.#confirmed.set(token.sha256, node);
      return null;
    }
    const declared = this.deps.config.tokens.find((t) => t.node === node && t.sha256 !== token.sha256);
    if (declared) throw takenBy(node, declared.name);
    const holder = await store.ofNode(node);
    if (holder && (await this.#alive(holder))) throw takenBy(node, holder.token);
    const binding = {
      node,
      token: token.name,
      tokenSha256: token.sha256,
      boundAt: this.deps.now().toISOString(),
    };
    return { binding, replaces: holder };
  }

  /** Makes the binding inside the accepted beat's transaction; a token that raced it to the node wins. */
  async bind(tx: StoreTx, { binding, replaces }: NewBinding): Promise<void> {
    if (replaces) await tx.agentNodes.release(replaces.tokenSha256);
    const holder = await tx.agentNodes.bind(binding);
    if (!holder) throw forbidden(`${binding.token} is bound to another node already`);
    if (holder.tokenSha256 !== binding.tokenSha256) throw takenBy(binding.node, holder.token);
  }

  /** After the accepted beat committed. */
  confirm({ binding }: NewBinding): void {
    this.#confirmed.set(binding.tokenSha256, binding.node);
  }

  /** The node each token is bound to, by token name, for `token list`. */
  async byToken(): Promise<Map<string, AgentNode>> {
    return new Map((await this.deps.store.agentNodes.list()).map((b) => [b.token, b]));
  }

  /** Whether a node is free for a token made for it now (409 at creation otherwise). */
  async holderOf(node: string): Promise<string | null> {
    const declared = this.deps.config.tokens.find((t) => t.node === node);
    if (declared) return declared.name;
    const holder = await this.deps.store.agentNodes.ofNode(node);
    return holder && (await this.#alive(holder)) ? holder.token : null;
  }

  async #alive(binding: AgentNode): Promise<boolean> {
    const token = await this.tokens.byName(binding.token);
    return token !== null && token.sha256 === binding.tokenSha256;
  }
}

function notYours(token: KnownToken, bound: string, asked: string) {
  return forbidden(`${token.name} is the agent token of node ${bound}; it may not report node ${asked}`);
}

function takenBy(node: string, token: string) {
  return forbidden(`node ${node} is bound to another agent token (${token}); each node has its own`);
}
