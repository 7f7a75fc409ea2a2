import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import OpenAI, { APIError } from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ServeProcess, spawnServe } from "./multi-kit";

// A chat body over gateway.bodyLimitMB is a 413 the client reads, every time: the listener answers
// before the body has all come, then reads and drops the rest before it closes. Closed at once,
// the client's remaining bytes met a reset and the `openai` SDK said "Connection error." instead.
// The real `llmgw serve` in its own process: in this one, client and server would share a thread
// and take turns, and the race the clients lost would not happen.

const TRIES = 10;
const LIMIT_MB = 32;
const BODY_BYTES = 40 * 1024 * 1024;

let server: ServeProcess;
let root = "";
/** One 40 MB chat body, built once: the content is most of it. */
let content = "";

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "llmgw-body-limit-"));
  const config = join(root, "llmgw.yaml");
  await writeFile(config, `heartbeatSeconds: 3600\ngateway:\n  bodyLimitMB: ${LIMIT_MB}\n`);
  server = await spawnServe({ dataDir: join(root, "data"), config });
  content = "x".repeat(BODY_BYTES);
}, 60_000);

afterAll(async () => {
  await server?.stop();
  if (root) await rm(root, { recursive: true, force: true });
});

const tooLarge = {
  status: 413,
  code: "payload_too_large",
  message: `the body is larger than ${LIMIT_MB} MiB`,
};

describe(`a ${BODY_BYTES / 1024 / 1024} MB chat body against gateway.bodyLimitMB ${LIMIT_MB}`, () => {
  it.each([false, true])(
    `reaches the openai SDK as a 413 with its message, ${TRIES} times (stream: %s)`,
    async (stream) => {
      const client = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: "unused", maxRetries: 0 });
      for (let i = 0; i < TRIES; i++) {
        const err = await client.chat.completions
          .create({ model: "anything", stream, messages: [{ role: "user", content }] })
          .then(
            () => null,
            (e: unknown) => e,
          );
        expect(err, `try ${i + 1}`).toBeInstanceOf(APIError);
        const { status, code, message } = err as APIError;
        expect({ status, code, message: message.replace(/^413 /, "") }, `try ${i + 1}`).toEqual(tooLarge);
      }
    },
    120_000,
  );

  it.each([false, true])(
    `reaches fetch as a 413 with its message, ${TRIES} times (stream: %s)`,
    async (stream) => {
      const body = JSON.stringify({ model: "anything", stream, messages: [{ role: "user", content }] });
      for (let i = 0; i < TRIES; i++) {
        const res = await fetch(`${server.url}/v1/chat/completions`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body,
        });
        const answer = (await res.json()) as { error: { code: string; message: string } };
        expect({ status: res.status, ...answer.error }, `try ${i + 1}`).toMatchObject(tooLarge);
      }
    },
    120_000,
  );

  it(`reaches fetch as a 413 with its message when the body is sent chunked, without a length, ${TRIES} times`, async () => {
    const bytes = Buffer.from(JSON.stringify({ model: "anything", messages: [{ role: "user", content }] }));
    for (let i = 0; i < TRIES; i++) {
      // 1 MiB pieces as a stream: the server finds the body too large only as it reads it.
      const pieces = new ReadableStream<Uint8Array>({
        start(controller) {
          for (let at = 0; at < bytes.length; at += 1024 * 1024)
            controller.enqueue(bytes.subarray(at, at + 1024 * 1024));
          controller.close();
        },
      });
      const res = await fetch(`${server.url}/v1/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: pieces,
        duplex: "half",
      } as RequestInit);
      const answer = (await res.json()) as { error: { code: string; message: string } };
      expect({ status: res.status, ...answer.error }, `try ${i + 1}`).toMatchObject(tooLarge);
    }
  }, 120_000);

  it("still answers afterwards", async () => {
    const res = await fetch(`${server.url}/v1/models`);
    expect(res.status).toBe(200);
  });
});
