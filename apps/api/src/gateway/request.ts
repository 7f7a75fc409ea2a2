import type { IncomingMessage } from "node:http";
import { GatewayError, invalidRequest } from "./errors";

/** What the gateway reads of an inference request; the body itself goes on byte for byte. */
export type InferenceRequest = {
  bytes: Uint8Array;
  model: string;
  /** `X-Session-Id`, else the body's `user`: requests with one stick to one replica. */
  sessionKey: string | null;
};

const UTF8 = new TextDecoder("utf-8", { fatal: true });

/**
 * Reads the whole body (at most `limitBytes`: 413 beyond, without reading the rest) and the few
 * fields routing needs. 400 `invalid_request` for a body that is not a JSON object naming a model.
 */
export async function readInference(request: Request, limitBytes: number): Promise<InferenceRequest> {
  const bytes = await readLimited(request, limitBytes);
  return inferenceOf(bytes, request.headers.get("x-session-id"));
}

/**
 * The same from Node's request itself (under @hono/node-server): no web Request, no web stream.
 * `gone` runs when the client goes away before the whole body came.
 */
export async function readInferenceFrom(
  incoming: IncomingMessage,
  limitBytes: number,
  gone: () => void,
): Promise<InferenceRequest> {
  const bytes = await readLimitedFrom(incoming, limitBytes, gone);
  const header = incoming.headers["x-session-id"];
  return inferenceOf(bytes, typeof header === "string" ? header : null);
}

function inferenceOf(bytes: Uint8Array, sessionHeader: string | null): InferenceRequest {
  let body: unknown;
  try {
    body = JSON.parse(UTF8.decode(bytes));
  } catch {
    throw invalidRequest("the body is not valid JSON");
  }
  if (typeof body !== "object" || body === null || Array.isArray(body))
    throw invalidRequest("the body must be a JSON object");
  const { model, user } = body as { model?: unknown; user?: unknown };
  if (typeof model !== "string" || model === "")
    throw invalidRequest("the body names no model: send `model`, a model's name or alias");
  const sessionKey = sessionHeader ? sessionHeader : typeof user === "string" && user !== "" ? user : null;
  return { bytes, model, sessionKey };
}

const tooLarge = (limitBytes: number) =>
  new GatewayError(
    413,
    "payload_too_large",
    `the body is larger than ${Math.round(limitBytes / 1024 / 1024)} MiB`,
  );

async function readLimited(request: Request, limitBytes: number): Promise<Uint8Array> {
  const declared = Number(request.headers.get("content-length") ?? Number.NaN);
  if (declared > limitBytes) throw tooLarge(limitBytes);
  if (!request.body) return new Uint8Array();
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = request.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limitBytes) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge(limitBytes);
    }
    chunks.push(value);
  }
  return joined(chunks, size);
}

function readLimitedFrom(
  incoming: IncomingMessage,
  limitBytes: number,
  gone: () => void,
): Promise<Uint8Array> {
  const declared = Number(incoming.headers["content-length"] ?? Number.NaN);
  if (declared > limitBytes) return Promise.reject(tooLarge(limitBytes));
  if (incoming.readableEnded) return Promise.resolve(new Uint8Array());
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const stop = () => {
      incoming.off("data", onData);
      incoming.off("end", onEnd);
      incoming.off("error", onFailed);
      incoming.off("close", onFailed);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.byteLength;
      if (size > limitBytes) {
        // The rest is not read: @hono/node-server drains or drops it once the answer is out.
        stop();
        incoming.pause();
        reject(tooLarge(limitBytes));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      stop();
      resolve(joined(chunks, size));
    };
    const onFailed = (err?: unknown) => {
      if (incoming.readableEnded) return onEnd();
      stop();
      gone();
      reject(err instanceof Error ? err : new Error("the client went away before the whole body came"));
    };
    incoming.on("data", onData);
    incoming.on("end", onEnd);
    incoming.on("error", onFailed);
    incoming.on("close", onFailed);
  });
}

function joined(chunks: Uint8Array[], size: number): Uint8Array {
  if (chunks.length === 1) return chunks[0] as Uint8Array;
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  return bytes;
}
