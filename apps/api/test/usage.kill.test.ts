import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { StandInEngine } from "@llmgw/simulation";
import { describeOnEachDatabase } from "@llmgw/store/testing";
import { expect, it } from "vitest";
import { heartbeat, modelInput } from "./factories";
import { freshDatabase, type ServeProcess, spawnServe } from "./multi-kit";

// SPEC §12.1: "a process killed loses at most its last second". The real `llmgw serve`, under a
// load of real requests, is killed with SIGKILL; started again on the same store, what it stored
// is compared with what its clients were answered, answer by answer in time.

const CLIENTS = 8;
const LOAD_MS = 3_000;
/** The recorder writes once a second; its write (one transaction) takes this long at most here. */
const WRITE_SLACK_MS = 300;

describeOnEachDatabase("usage across a kill -9 on $name", ({ url: postgres }) => {
  it("a process killed under load loses at most its last second of counts", async () => {
    const root = await mkdtemp(join(tmpdir(), "llmgw-usage-kill-"));
    const database = postgres ? await freshDatabase(postgres) : null;
    const engine = await StandInEngine.start({ replyTokens: 4, tokensPerSecond: 100_000, forgetful: true });
    const config = join(root, "llmgw.yaml");
    await writeFile(config, "heartbeatSeconds: 3600\n");
    const start = () =>
      spawnServe({
        dataDir: root,
        config,
        databaseUrl: database?.url ?? null,
        // The replica the test reports is the model's without any placement (SPEC §4).
        env: { LLMGW_SCHEDULER: "off" },
      });
    let server: ServeProcess | null = await start();
    try {
      const base = server.url;
      const model = modelInput();
      const json = (body: unknown) => ({
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      expect((await fetch(`${base}/api/v1/models`, json(model))).status).toBe(201);
      const beat = heartbeat({
        replicas: [{ id: "kill-r1", model: model.name, state: "ready", endpoint: engine.url }],
      });
      expect((await fetch(`${base}/api/v1/agents/heartbeat`, json(beat))).status).toBe(200);

      // The load: each client sends one request after another; every answer's time is kept.
      const answeredAt: number[] = [];
      let sent = 0;
      let killed = false;
      const client = async () => {
        while (!killed) {
          sent++;
          try {
            const res = await fetch(
              `${base}/v1/chat/completions`,
              json({ model: model.name, messages: [{ role: "user", content: "one two three" }] }),
            );
            await res.arrayBuffer();
            if (res.status === 200) answeredAt.push(performance.now());
          } catch {
            // The kill cut it off.
          }
        }
      };
      const clients = Array.from({ length: CLIENTS }, client);
      await new Promise((resolve) => setTimeout(resolve, LOAD_MS));
      const killAt = performance.now();
      killed = true;
      await server.stop("SIGKILL");
      server = null;
      await Promise.all(clients);

      server = await start();
      const from = new Date(Date.now() - 2 * 3_600_000).toISOString();
      const reading = (await (await fetch(`${server.url}/api/v1/usage?by=model&from=${from}`)).json()) as {
        rows: { key: string; requests: number }[];
      };
      const stored = reading.rows.filter((r) => r.key === model.name).reduce((n, r) => n + r.requests, 0);

      const answered = answeredAt.length;
      const lastSecond = answeredAt.filter((t) => t > killAt - 1_000).length;
      const beforeLastSecond = answeredAt.filter((t) => t <= killAt - 1_000 - WRITE_SLACK_MS).length;
      const lost = answered - stored;
      console.log(
        `kill -9 on ${database ? "PostgreSQL" : "PGlite"}: ${answered} answered, ${stored} stored, ${lost} lost; ` +
          `${lastSecond} answered in the last second before the kill, so ~${Math.round((lost / Math.max(1, lastSecond)) * 1000)} ms of counts lost (${sent} sent)`,
      );
      expect(answered).toBeGreaterThan(100);
      // Everything answered before the last write that could have carried it is stored...
      expect(stored).toBeGreaterThanOrEqual(beforeLastSecond);
      // ...so what is lost is within what the last second (and one write's time) answered.
      expect(lost).toBeLessThanOrEqual(answered - beforeLastSecond);
      // And nothing is counted that was never sent.
      expect(stored).toBeLessThanOrEqual(sent);
    } finally {
      await server?.stop();
      await engine.close();
      await database?.drop();
      await rm(root, { recursive: true, force: true });
    }
  }, 120_000);
});
