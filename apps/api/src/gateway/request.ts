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
  /** Without a session key, the prompt's beginning: where its cache is decides (SPEC §7.1a). */
  beginning: Beginning | null;
};

/**
 * Up to this size a body is parsed whole (JSON.parse is quickest on small text); a larger one is
 * walked once for its top-level `model` and `user` and never built (jsonScan.ts).
 */
export const PARSED_WHOLE_BYTES = 64 * 1024;
const ROUTING_KEYS = ["model", "user"] as const;

/**
 * The fields routing needs, from a body that must be a JSON object naming a model (400
 * `invalid_request` otherwise). The model is checked by the contract's own schema.
 */
export function inferenceOf(bytes: Uint8Array, sessionHeader: string | undefined): InferenceRequest {
  if (!isUtf8(bytes)) throw invalidRequest("the body is not valid JSON");
  const { model, user } = bytes.byteLength <= PARSED_WHOLE_BYTES ? parsedWhole(bytes) : scanned(bytes);
  const named = modelReferenceSchema.safeParse(model);
  if (!named.success) throw invalidRequest(named.error.issues[0]?.message ?? "the body names no model");
  const sessionKey = sessionHeader ? sessionHeader : typeof user === "string" && user !== "" ? user : null;
  return { bytes, model: named.data, sessionKey, beginning: sessionKey === null ? beginningOf(bytes) : null };
}

type Routing = { model?: unknown; user?: unknown };

function parsedWhole(bytes: Uint8Array): Routing {
  let body: unknown;
  try {
    body = JSON.parse(textOf(bytes, 0, bytes.byteLength));
  } catch {
    throw invalidRequest("the body is not valid JSON");
  }
  if (typeof body !== "object" || body === null || Array.isArray(body))
    throw invalidRequest("the body must be a JSON object");
  const { model, user } = body as Routing;
  return { model, user };
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
