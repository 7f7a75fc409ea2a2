import { MAX_LINE_BYTES } from "./usage";

const EVENT_END = Buffer.from("\n\n");
const USAGE_KEY = Buffer.from('"usage"');
const EMPTY = Buffer.alloc(0);
const USAGE_ONLY = /"choices"\s*:\s*\[\s*\]/;
const USAGE_OBJECT = /"usage"\s*:\s*\{/;

/**
 * Leaves the usage-only chunk out of an event stream whose client did not ask for usage (SPEC
 * §12.1: the gateway asked the engine for it, to count). Passes whole events on as they complete;
 * only a chunk that mentions `"usage"` is split into its events, so the common chunk goes on as
 * it came. An unfinished event waits for its end (bounded: past MAX_LINE_BYTES it goes on as is).
 */
export class UsageChunkFilter {
  #held: Buffer = EMPTY;

  push(chunk: Buffer): Buffer {
    const data = this.#held.byteLength > 0 ? Buffer.concat([this.#held, chunk]) : chunk;
    const last = data.lastIndexOf(EVENT_END);
    if (last === -1) {
      if (data.byteLength > MAX_LINE_BYTES) {
        this.#held = EMPTY;
        return data;
      }
      this.#held = data;
      return EMPTY;
    }
    const whole = data.subarray(0, last + EVENT_END.byteLength);
    this.#held = data.subarray(last + EVENT_END.byteLength);
    if (whole.indexOf(USAGE_KEY) === -1) return whole;
    const kept: Buffer[] = [];
    let from = 0;
    for (let end = whole.indexOf(EVENT_END); end !== -1; end = whole.indexOf(EVENT_END, from)) {
      const event = whole.subarray(from, end + EVENT_END.byteLength);
      if (!isUsageOnly(event)) kept.push(event);
      from = end + EVENT_END.byteLength;
    }
    return kept.length === 1 ? (kept[0] as Buffer) : Buffer.concat(kept);
  }

  /** What is left when the stream ends (an unfinished last event goes on as it is). */
  end(): Buffer {
    const rest = this.#held;
    this.#held = EMPTY;
    return rest;
  }
}

function isUsageOnly(event: Buffer): boolean {
  if (event.indexOf(USAGE_KEY) === -1) return false;
  const text = event.toString("utf8");
  return USAGE_ONLY.test(text) && USAGE_OBJECT.test(text);
}
