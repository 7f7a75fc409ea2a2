import { GatewayError, invalidRequest } from "./errors";

/** What the gateway reads of an inference request; the body itself goes on byte for byte. */
export type InferenceRequest = {
  bytes: Uint8Array;
  model: string;
  /** `X-Session-Id`, else the body's `user`: requests with one stick to one replica. */
  sessionKey: string | null;
};

/**
 * Reads the whole body (at most `limitBytes`: 413 beyond, without reading the rest) and the few
 * fields routing needs. 400 `invalid_request` for a body that is not a JSON object naming a model.
 */
export async function readInference(request: Request, limitBytes: number): Promise<InferenceRequest> {
  const bytes = await readLimited(request, limitBytes);
  let body: unknown;
  try {
    body = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
  } catch {
    throw invalidRequest("the body is not valid JSON");
  }
  if (typeof body !== "object" || body === null || Array.isArray(body))
    throw invalidRequest("the body must be a JSON object");
  const { model, user } = body as { model?: unknown; user?: unknown };
  if (typeof model !== "string" || model === "")
    throw invalidRequest("the body names no model: send `model`, a model's name or alias");
  const header = request.headers.get("x-session-id");
  const sessionKey = header ? header : typeof user === "string" && user !== "" ? user : null;
  return { bytes, model, sessionKey };
}

async function readLimited(request: Request, limitBytes: number): Promise<Uint8Array> {
  const tooLarge = () =>
    new GatewayError(
      413,
      "payload_too_large",
      `the body is larger than ${Math.round(limitBytes / 1024 / 1024)} MiB`,
    );
  const declared = Number(request.headers.get("content-length") ?? Number.NaN);
  if (declared > limitBytes) throw tooLarge();
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
      throw tooLarge();
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  return bytes;
}
