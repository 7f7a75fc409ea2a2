import { createHash } from "node:crypto";
import { mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Pull } from "@llmgw/domain";
import { describeOnEachDatabase, freshDatabase } from "@llmgw/store/testing";
import { afterAll, beforeAll, expect, it } from "vitest";
import { randomLfsFile, StandInHub } from "../kit";
import { type ServeProcess, spawnServe } from "../multi-kit";

// SPEC §10.4: a pull is stored, so `kill -9` of the real `llmgw serve` in the middle of one loses
// nothing: started again on the same data, it resumes the file from its `.part` with Range.

const BYTES = 6_000_000;

describeOnEachDatabase("a pull through a kill -9 on $name", ({ url }) => {
  let hub: StandInHub;
  let root: string;
  let drop = async () => {};
  let databaseUrl: string | null = null;
  const servers: ServeProcess[] = [];

  beforeAll(async () => {
    hub = await StandInHub.start();
    root = await mkdtemp(join(tmpdir(), "llmgw-pull-restart-"));
    if (url) {
      const fresh = await freshDatabase(url);
      databaseUrl = fresh.url;
      drop = fresh.drop;
    }
  });
  afterAll(async () => {
    for (const s of servers) await s.stop("SIGKILL");
    await hub.close();
    await drop();
    await rm(root, { recursive: true, force: true });
  });

  async function serve(): Promise<ServeProcess> {
    const config = join(root, "llmgw.yaml");
    await writeFile(config, `heartbeatSeconds: 3600\nhuggingface:\n  endpoint: ${hub.url}\n`);
    const server = await spawnServe({ dataDir: join(root, "data"), config, databaseUrl });
    servers.push(server);
    return server;
  }

  async function pullAt(server: ServeProcess, id: string): Promise<Pull> {
    const res = await fetch(`${server.url}/api/v1/mirror/pulls/${id}`);
    return (await res.json()) as Pull;
  }

  it("resumes from the .part after a restart, and the file is whole", async () => {
    const file = randomLfsFile("Restart-Q4_K_M.gguf", BYTES);
    await hub.addRepo({ repo: "stand-in/Restart-GGUF", files: [file] });
    // Slow enough to be killed in the middle.
    hub.knobs.bytesPerSecond = 1_000_000;

    const first = await serve();
    const res = await fetch(`${first.url}/api/v1/mirror/pulls`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ repo: "stand-in/Restart-GGUF" }),
    });
    expect(res.status).toBe(202);
    const { id } = (await res.json()) as Pull;
    await expect
      .poll(async () => (await pullAt(first, id)).bytesDone, { timeout: 20_000 })
      .toBeGreaterThan(1_000_000);

    await first.stop("SIGKILL");
    const dest = join(root, "data", "mirror", "restart-gguf", "Q4_K_M", "Restart-Q4_K_M.gguf");
    const left = (await stat(`${dest}.part`)).size;
    expect(left).toBeGreaterThan(0);
    expect(left).toBeLessThan(BYTES);
    hub.requests.length = 0;
    hub.knobs.bytesPerSecond = null;

    const second = await serve();
    await expect
      .poll(async () => (await pullAt(second, id)).state, { timeout: 45_000, interval: 250 })
      .toBe("complete");
    const resumed = hub.requestsTo("cdn").map((r) => r.range);
    expect(resumed).toHaveLength(1);
    expect(Number(/^bytes=(\d+)-$/.exec(resumed[0] ?? "")?.[1])).toBeGreaterThanOrEqual(left);
    const pulled = await readFile(dest);
    expect(createHash("sha256").update(pulled).digest("hex")).toBe(
      createHash("sha256")
        .update(file.data ?? Buffer.alloc(0))
        .digest("hex"),
    );
    const mirror = (await (await fetch(`${second.url}/api/v1/mirror`)).json()) as {
      model: string;
      version: string;
    }[];
    expect(mirror).toMatchObject([{ model: "restart-gguf", version: "Q4_K_M" }]);
  }, 120_000);
});
