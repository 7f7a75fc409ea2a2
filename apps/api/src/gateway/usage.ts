/** Token counts an engine reports in `usage` (SPEC §7.7). */
export type Usage = { promptTokens: number | null; completionTokens: number | null };

const NONE: Usage = { promptTokens: null, completionTokens: null };
/** A JSON answer longer than this is not searched for `usage` (embeddings of a large batch). */
const MAX_JSON_BYTES = 4 * 1024 * 1024;

function usageOf(value: unknown): Usage | null {
  if (typeof value !== "object" || value === null) return null;
  const usage = (value as { usage?: unknown }).usage;
  if (typeof usage !== "object" || usage === null) return null;
  const { prompt_tokens, completion_tokens } = usage as Record<string, unknown>;
  return {
    promptTokens: typeof prompt_tokens === "number" ? prompt_tokens : null,
    completionTokens: typeof completion_tokens === "number" ? completion_tokens : null,
  };
}

/**
 * Watches an answer's bytes as they pass, without holding them back: in an event stream the
 * last `data:` event carrying `usage` wins; a JSON answer is parsed once it has ended.
 */
export class UsageReader {
  readonly #decoder = new TextDecoder();
  readonly #stream: boolean;
  #text = "";
  #size = 0;
  #found: Usage | null = null;

  constructor(contentType: string | undefined) {
    this.#stream = contentType?.includes("text/event-stream") ?? false;
  }

  push(chunk: Uint8Array): void {
    this.#size += chunk.byteLength;
    if (!this.#stream) {
      if (this.#size <= MAX_JSON_BYTES) this.#text += this.#decoder.decode(chunk, { stream: true });
      return;
    }
    this.#text += this.#decoder.decode(chunk, { stream: true });
    const lines = this.#text.split("\n");
    this.#text = lines.pop() ?? "";
    for (const line of lines) {
      if (!line.startsWith("data:") || !line.includes('"usage"')) continue;
      try {
        this.#found = usageOf(JSON.parse(line.slice(5))) ?? this.#found;
      } catch {
        // Not JSON ([DONE], or an engine's own framing): no usage in it.
      }
    }
  }

  get usage(): Usage {
    if (this.#stream) return this.#found ?? NONE;
    if (this.#size > MAX_JSON_BYTES) return NONE;
    try {
      return usageOf(JSON.parse(this.#text)) ?? NONE;
    } catch {
      return NONE;
    }
  }
}
