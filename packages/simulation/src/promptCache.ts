// What a llama-server slot and its host-RAM prompt cache do, in miniature: an engine reads again
// only the part of a prompt that no cached prompt begins with, and keeps recent prompts up to a
// budget of tokens, the least recently used dropped first. Tokens here are the prompt's words.

/** The words a prompt is read as: each message's role and content in order, or the prompt text. */
export function promptWords(request: Record<string, unknown>): string[] {
  const messages = request.messages;
  const text = Array.isArray(messages)
    ? messages
        .map((m) => {
          const { role, content } = (typeof m === "object" && m !== null ? m : {}) as Record<string, unknown>;
          return `${String(role ?? "")}: ${typeof content === "string" ? content : JSON.stringify(content ?? "")}`;
        })
        .join("\n")
    : typeof request.prompt === "string"
      ? request.prompt
      : JSON.stringify(request.prompt ?? "");
  return text.split(/\s+/).filter(Boolean);
}

export class PromptCache {
  /** Cached prompts, least recently used first. */
  #prompts: string[][] = [];
  #tokens = 0;

  constructor(private readonly budgetTokens: number) {}

  /** How many of `words` from the first are cached; the prompt is then cached itself. */
  read(words: readonly string[]): number {
    let best = 0;
    let bestAt = -1;
    this.#prompts.forEach((cached, at) => {
      const n = commonPrefix(cached, words);
      if (n > best) {
        best = n;
        bestAt = at;
      }
    });
    // The longest match is the slot the engine reuses: it now holds this prompt instead.
    if (bestAt >= 0 && best === (this.#prompts[bestAt]?.length ?? 0)) this.#drop(bestAt);
    else if (bestAt >= 0) this.#prompts.push(...this.#prompts.splice(bestAt, 1));
    this.#prompts.push([...words]);
    this.#tokens += words.length;
    while (this.#tokens > this.budgetTokens && this.#prompts.length > 1) this.#drop(0);
    return best;
  }

  #drop(at: number): void {
    const [gone] = this.#prompts.splice(at, 1);
    this.#tokens -= gone?.length ?? 0;
  }
}

function commonPrefix(a: readonly string[], b: readonly string[]): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a[i] === b[i]) i++;
  return i;
}
