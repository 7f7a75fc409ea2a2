import { mkdtemp, rm } from "node:fs/promises";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { silentLogger } from "@llmgw/log";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../src/config";
import { type RunningServer, startServer } from "../src/server";

// `llmgw serve`'s listener hands a plain /v1 request to the request path before @hono/node-server
// builds anything; a target the URL parser would rewrite goes through node-server, normalised, and
// lands where that normalised path says: never on /v1 by a trick of dot segments.

let server: RunningServer;
let root = "";

/** A raw request, its target sent exactly as written (fetch would normalise it first). */
function raw(
  method: string,
  target: string,
): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  const { port } = new URL(server.url);
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, method, path: target }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (text: string) => {
        body += text;
      });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on("error", reject);
    req.end();
  });
}

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "llmgw-listener-"));
  const config = loadConfig({ dataDir: root, listen: "127.0.0.1:0" }, { LLMGW_SCHEDULER: "off" });
  server = await startServer(config, { log: silentLogger() });
}, 60_000);

afterAll(async () => {
  await server?.close();
  if (root) await rm(root, { recursive: true, force: true });
});

describe("the listener", () => {
  it("answers a plain /v1 target from the request path, with its id and security headers", async () => {
    const res = await raw("GET", "/v1/models?limit=5");
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body)).toEqual({ object: "list", data: [] });
    expect(res.headers["x-request-id"]).toEqual(expect.any(String));
    expect(res.headers["x-content-type-options"]).toBe("nosniff");
  });

  it("answers a HEAD as the GET without its body", async () => {
    const head = await raw("HEAD", "/v1/models");
    expect(head.status).toBe(200);
    expect(head.body).toBe("");
    expect(head.headers["content-type"]).toBe("application/json");
  });

  it("sends a target with dot segments or odd characters through node-server, normalised", async () => {
    expect((await raw("GET", "/v1/./models")).status).toBe(200);
    expect(JSON.parse((await raw("GET", "/v1/%2e/models")).body)).toMatchObject({ object: "list" });
    // Out of /v1 once resolved: the control plane answers, in its own shape.
    const out = await raw("GET", "/v1/../healthz");
    expect(out.status).toBe(200);
    expect(JSON.parse(out.body)).toMatchObject({ ok: true });
    expect((await raw("GET", '/v1/models?q="x"')).status).toBe(200);
  });

  it("answers a body over gateway.bodyLimitMB with a 413 and closes the connection, unread", async () => {
    server.deps.config.gateway.bodyLimitMB = 1;
    try {
      for (const declared of [true, false]) {
        const { port } = new URL(server.url);
        const body = Buffer.alloc(3 * 1024 * 1024, "x");
        const answer = await new Promise<{ status: number; connection: string | undefined }>(
          (resolve, reject) => {
            const req = request(
              {
                host: "127.0.0.1",
                port,
                method: "POST",
                path: "/v1/chat/completions",
                headers: declared
                  ? { "content-length": body.byteLength }
                  : { "transfer-encoding": "chunked" },
              },
              (res) => {
                res.resume();
                res.on("end", () =>
                  resolve({ status: res.statusCode ?? 0, connection: res.headers.connection }),
                );
              },
            );
            // The server may close before it has all of it: that is the point.
            req.on("error", (err) =>
              err.message.includes("EPIPE") || err.message.includes("ECONNRESET") ? undefined : reject(err),
            );
            req.end(body);
          },
        );
        expect(answer, declared ? "declared" : "chunked").toEqual({ status: 413, connection: "close" });
      }
      expect((await raw("GET", "/v1/models")).status).toBe(200);
    } finally {
      server.deps.config.gateway.bodyLimitMB = 32;
    }
  });

  it("refuses an unknown /v1 endpoint in OpenAI's shape either way", async () => {
    for (const target of ["/v1/nothing", "/v1/./nothing"]) {
      const res = await raw("GET", target);
      expect(res.status, target).toBe(404);
      expect(JSON.parse(res.body), target).toMatchObject({ error: { code: "not_found", param: null } });
    }
  });
});
