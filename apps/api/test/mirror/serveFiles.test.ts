import { symlink } from "node:fs/promises";
import { join } from "node:path";
import { llama3_8b, writeGgufFile, writeNotGguf, writeSafetensorsFile } from "@llmgw/simulation";
import { describe, expect, it } from "vitest";
import { createMirror } from "../../src/mirror/scanner";
import { mirrorFiles } from "../../src/mirror/serveFiles";
import { GB, tempDir } from "./fixtures";

const SIZE = 4.7 * GB;
const FILE = "/mirror/llama3/q4/llama3.gguf";

async function mirrorApp() {
  const dir = await tempDir();
  await writeGgufFile(join(dir, "llama3", "q4", "llama3.gguf"), llama3_8b({ weightsBytes: SIZE }));
  await writeSafetensorsFile(join(dir, "mistral", "fp16", "model-00001-of-00002.safetensors"), 3 * GB);
  await writeSafetensorsFile(join(dir, "mistral", "fp16", "model-00002-of-00002.safetensors"), 2 * GB);
  await writeNotGguf(join(dir, "mistral", "fp16", "tokenizer.json.part"), 10);
  return { dir, app: mirrorFiles(createMirror({ dir })) };
}

async function bytesOf(res: Response): Promise<Buffer> {
  return Buffer.from(await res.arrayBuffer());
}

describe("GET /mirror/:model/:version/:file", () => {
  it("serves the whole file with its length and range support announced", async () => {
    const { app } = await mirrorApp();

    const res = await app.request(FILE);

    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Length")).toBe(String(SIZE));
    expect(res.headers.get("Accept-Ranges")).toBe("bytes");
    expect(res.headers.get("Content-Type")).toBe("application/octet-stream");
    // 4.7 GB is not for a unit test to read: the first chunk proves it streams.
    const reader = res.body?.getReader();
    const first = await reader?.read();
    expect(Buffer.from(first?.value ?? []).toString("latin1", 0, 4)).toBe("GGUF");
    await reader?.cancel();
  });

  it("serves the first 100 bytes, starting with the GGUF magic", async () => {
    const { app } = await mirrorApp();

    const res = await app.request(FILE, { headers: { Range: "bytes=0-99" } });

    expect(res.status).toBe(206);
    expect(res.headers.get("Content-Range")).toBe(`bytes 0-99/${SIZE}`);
    expect(res.headers.get("Content-Length")).toBe("100");
    const body = await bytesOf(res);
    expect(body).toHaveLength(100);
    expect(body.toString("latin1", 0, 4)).toBe("GGUF");
    expect(body.readUInt32LE(4)).toBe(3);
  });

  it("serves a suffix range: the last 10 bytes", async () => {
    const { app } = await mirrorApp();

    const res = await app.request(FILE, { headers: { Range: "bytes=-10" } });

    expect(res.status).toBe(206);
    expect(res.headers.get("Content-Range")).toBe(`bytes ${SIZE - 10}-${SIZE - 1}/${SIZE}`);
    expect(await bytesOf(res)).toEqual(Buffer.alloc(10));
  });

  it("serves an open range to the end, and clamps one that runs past it", async () => {
    const { app } = await mirrorApp();

    const open = await app.request(FILE, { headers: { Range: `bytes=${SIZE - 5}-` } });
    const past = await app.request(FILE, { headers: { Range: `bytes=${SIZE - 3}-${SIZE + 100}` } });

    expect([open.status, (await bytesOf(open)).length]).toEqual([206, 5]);
    expect(past.headers.get("Content-Range")).toBe(`bytes ${SIZE - 3}-${SIZE - 1}/${SIZE}`);
    expect((await bytesOf(past)).length).toBe(3);
  });

  it.each([`bytes=${SIZE}-`, `bytes=${SIZE + 1}-${SIZE + 9}`, "bytes=-0"])(
    "answers %s with 416",
    async (range) => {
      const { app } = await mirrorApp();

      const res = await app.request(FILE, { headers: { Range: range } });

      expect(res.status).toBe(416);
      expect(res.headers.get("Content-Range")).toBe(`bytes */${SIZE}`);
      expect(await res.json()).toEqual({ error: { code: "bad_request", message: expect.any(String) } });
    },
  );

  it.each(["bytes=0-1,5-6", "items=0-9", "bytes=9-1"])(
    "ignores a Range it does not serve (%s)",
    async (range) => {
      const { app } = await mirrorApp();

      const res = await app.request(FILE, { method: "HEAD", headers: { Range: range } });

      expect([res.status, res.headers.get("Content-Length")]).toEqual([200, String(SIZE)]);
    },
  );

  it("answers HEAD with the headers and no body", async () => {
    const { app } = await mirrorApp();

    const res = await app.request(FILE, { method: "HEAD", headers: { Range: "bytes=0-99" } });

    expect(res.status).toBe(206);
    expect(res.headers.get("Content-Length")).toBe("100");
    expect(res.body).toBeNull();
  });

  it("sends the whole file when If-Range names another version of it", async () => {
    const { app } = await mirrorApp();
    const etag = (await app.request(FILE, { method: "HEAD" })).headers.get("ETag") ?? "";

    const same = await app.request(FILE, {
      method: "HEAD",
      headers: { Range: "bytes=0-9", "If-Range": etag },
    });
    const other = await app.request(FILE, {
      method: "HEAD",
      headers: { Range: "bytes=0-9", "If-Range": '"old"' },
    });

    expect([same.status, other.status]).toEqual([206, 200]);
  });

  it.each([
    "/mirror/llama3/q4/missing.gguf",
    "/mirror/nobody/q4/llama3.gguf",
    "/mirror/mistral/fp16/tokenizer.json.part",
    "/mirror/mistral/fp16/tokenizer.json",
    "/mirror/llama3/q4/llama3.gguf/extra",
  ])("answers %s with 404 in the error shape", async (path) => {
    const { app } = await mirrorApp();

    const res = await app.request(path);

    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ error: { code: "not_found", message: expect.any(String) } });
  });
});

describe("GET /mirror/:model/:version/ (the listing)", () => {
  it("lists a multi-file version's complete files with their sizes", async () => {
    const { app } = await mirrorApp();

    const res = await app.request("/mirror/mistral/fp16/");

    expect(res.status).toBe(200);
    expect(await res.json()).toEqual([
      { file: "model-00001-of-00002.safetensors", size: 3 * GB },
      { file: "model-00002-of-00002.safetensors", size: 2 * GB },
    ]);
  });

  it("answers the same without the trailing slash, and 404 for an unknown version", async () => {
    const { app } = await mirrorApp();

    expect(await (await app.request("/mirror/llama3/q4")).json()).toEqual([
      { file: "llama3.gguf", size: SIZE },
    ]);
    expect((await app.request("/mirror/llama3/q9/")).status).toBe(404);
  });
});

describe("path traversal", () => {
  it.each([
    "/mirror/llama3/q4/..%2F..%2F..%2F..%2Fetc%2Fpasswd",
    "/mirror/llama3/q4/%2Fetc%2Fpasswd",
    "/mirror/llama3/q4/..%5C..%5Cetc%5Cpasswd",
    "/mirror/llama3/q4/%252e%252e%252fetc%252fpasswd",
    "/mirror/llama3/..%2F..%2F..%2Fetc/passwd",
    "/mirror/..%2F..%2F..%2F../etc/passwd",
    "/mirror/llama3/q4/..",
    "/mirror/llama3/q4/%00",
    "/mirror/llama3/q4/.hidden",
  ])("answers %s with 404", async (path) => {
    const { app } = await mirrorApp();

    const res = await app.request(path);

    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ error: { code: "not_found" } });
  });

  // The URL parser resolves these dot segments before routing: they leave /mirror, and whatever
  // answers there (the main app's 404), it is not a file of the mirror.
  it.each([
    "/mirror/llama3/q4/../../../../etc/passwd",
    "/mirror/llama3/q4/%2e%2e/%2e%2e/%2e%2e/etc/passwd",
    "/mirror/%2E%2E/%2E%2E/",
  ])("never serves %s from the mirror", async (path) => {
    const { app } = await mirrorApp();

    const res = await app.request(path);

    expect(res.status).toBe(404);
    expect(await res.text()).not.toContain("root:");
  });

  it("does not follow a symlink out of the mirror", async () => {
    const { app, dir } = await mirrorApp();
    await symlink("/etc/passwd", join(dir, "llama3", "q4", "passwd"));

    expect((await app.request("/mirror/llama3/q4/passwd")).status).toBe(404);
  });
});
