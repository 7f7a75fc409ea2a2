import { isUtf8 } from "node:buffer";
import { modelReferenceSchema } from "@llmgw/contract";
import { type Beginning, beginningOf } from "./beginning";
import { GatewayError, invalidRequest } from "./errors";
import { topLevelMembers } from "./jsonScan";

/** What the gateway reads of an inference request; the body itself goes on byte for byte. */
export type InferenceRequest = {
  bytes: Uint8Array;
  model: string;
  /** `X-Session-Id`, else the body's `user`: requests with one stick to one replica. */
  sessionKey: string | null;
  /**
   * A stream whose client did not ask for usage: the gateway asked the engine for it (in `bytes`)
   * to count it, and leaves its chunk out of the answer (SPEC §12.1).
   */
  hideUsage: boolean;
  /** Without a session key, the prompt's beginning: where its cache is decides (SPEC §7.1a). */
  beginning: Beginning | null;
  /** The body's `max_tokens` and `max_completion_tokens` when whole numbers: a budget's reservation (SPEC §12.3). */
  maxTokens: number | null;
  maxCompletionTokens: number | null;
};

/**
 * Up to this size a body is parsed whole (JSON.parse is quickest on text this small); a larger one
 * is walked once for its top-level `model` and `user` and never built (jsonScan.ts). Measured on a
 * chat of one long message: 73 kB parsed in 56 µs, walked in 151 µs; 285 kB both 546 µs; 4.4 MB
 * parsed in 6.1 ms, walked in 5.4 ms, and the walk builds nothing of it.
 */
export const PARSED_WHOLE_BYTES = 256 * 1024;
const ROUTING_KEYS = [
  "model",
  "user",
  "stream",
  "stream_options",
  "max_tokens",
  "max_completion_tokens",
] as const;

/**
 * The fields routing needs, from a body that must be a JSON object naming a model (400
 * `invalid_request` otherwise). The model is checked by the contract's own schema.
 */
export function inferenceOf(bytes: Uint8Array, sessionHeader: string | undefined): InferenceRequest {
  if (!isUtf8(bytes)) throw invalidRequest("the body is not valid JSON");
  const routing = bytes.byteLength <= PARSED_WHOLE_BYTES ? parsedWhole(bytes) : scanned(bytes);
  const { model, user } = routing;
  const named = modelReferenceSchema.safeParse(model);
  if (!named.success) throw invalidRequest(named.error.issues[0]?.message ?? "the body names no model");
  const sessionKey = sessionHeader ? sessionHeader : typeof user === "string" && user !== "" ? user : null;
  const asked = usageAsked(bytes, routing);
  return {
    bytes: asked ?? bytes,
    model: named.data,
    sessionKey,
    beginning: sessionKey === null ? beginningOf(bytes) : null,
    hideUsage: asked !== null,
    maxTokens: wholeOrNull(routing.max_tokens),
    maxCompletionTokens: wholeOrNull(routing.max_completion_tokens),
  };
}

type Routing = {
  model?: unknown;
  user?: unknown;
  stream?: unknown;
  stream_options?: unknown;
  max_tokens?: unknown;
  max_completion_tokens?: unknown;
};

const wholeOrNull = (value: unknown): number | null =>
  typeof value === "number" && Number.isSafeInteger(value) && value >= 0 ? value : null;

const ASK_USAGE = Buffer.from('"stream_options":{"include_usage":true},');

/**
 * The body asking the engine for usage, for a stream whose client did not (SPEC §12.1); null when
 * it is no stream or already asks. Without `stream_options` the member is spliced in after the
 * opening brace (the rest goes on byte for byte); a small body with other options is written anew.
 */
function usageAsked(bytes: Uint8Array, { stream, stream_options: options }: Routing): Uint8Array | null {
  if (stream !== true) return null;
  if (options === undefined) {
    const open = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).indexOf(0x7b);
    if (open === -1) return null;
    const asked = new Uint8Array(bytes.byteLength + ASK_USAGE.byteLength);
    asked.set(bytes.subarray(0, open + 1), 0);
    asked.set(ASK_USAGE, open + 1);
    asked.set(bytes.subarray(open + 1), open + 1 + ASK_USAGE.byteLength);
    return asked;
  }
  if (typeof options !== "object" || options === null || Array.isArray(options)) return null;
  if ((options as { include_usage?: unknown }).include_usage === true) return null;
  if (bytes.byteLength > PARSED_WHOLE_BYTES) return null;
  const body = JSON.parse(textOf(bytes, 0, bytes.byteLength)) as Record<string, unknown>;
  body.stream_options = { ...options, include_usage: true };
  return Buffer.from(JSON.stringify(body));
}

function parsedWhole(bytes: Uint8Array): Routing {
  let body: unknown;
  try {
    body = JSON.parse(textOf(bytes, 0, bytes.byteLength));
  } catch {
    throw invalidRequest("the body is not valid JSON");
  }
  if (typeof body !== "object" || body === null || Array.isArray(body))
    throw invalidRequest("the body must be a JSON object");
  const { model, user, stream, stream_options, max_tokens, max_completion_tokens } = body as Routing;
  return { model, user, stream, stream_options, max_tokens, max_completion_tokens };
}

function scanned(bytes: Uint8Array): Routing {
  const members = topLevelMembers(bytes, ROUTING_KEYS);
  if (members === null) {
    // Which refusal: not JSON, or JSON that is not an object (the first byte tells).
    const first = textOf(bytes, 0, Math.min(bytes.byteLength, 64)).trimStart()[0];
    throw invalidRequest(
      first === "{" || first === undefined ? "the body is not valid JSON" : "the body must be a JSON object",
    );
  }
  const routing: Routing = {};
  for (const [key, { start, end }] of members)
    routing[key as keyof Routing] = JSON.parse(textOf(bytes, start, end));
  return routing;
}

function textOf(bytes: Uint8Array, start: number, end: number): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset + start, end - start).toString("utf8");
}

export const tooLarge = (limitBytes: number) =>
  new GatewayError({
    code: "payload_too_large",
    message: `the body is larger than ${Math.round(limitBytes / 1024 / 1024)} MiB`,
  });

/** Several chunks as one (the one chunk itself when there is only one). */
export function joined(chunks: Uint8Array[], size: number): Uint8Array {
  if (chunks.length === 1) return chunks[0] as Uint8Array;
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  return bytes;
}
