import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { silentLogger } from "@llmgw/log";
import { afterEach, describe, expect, it } from "vitest";
import { loadConfig } from "../src/config";
import { startServer } from "../src/server";

// A server without tokens accepts every request, so it listens only on loopback (the same rule
// the requests it answers are held to: isLoopback).

const roots: string[] = [];
afterEach(async () => {
  await Promise.all(roots.splice(0).map((root) => rm(root, { recursive: true, force: true })));
});

describe("a server without tokens", () => {
  it.each(["0.0.0.0", "10.0.0.7"])("refuses to listen on %s, before opening anything", async (host) => {
    const root = await mkdtemp(join(tmpdir(), "llmgw-loopback-"));
    roots.push(root);
    const config = loadConfig({ dataDir: root, listen: `${host}:0` }, { LLMGW_SCHEDULER: "off" });

    await expect(startServer(config, { log: silentLogger() })).rejects.toThrow(
      `refusing to listen on ${host}: no tokens are configured`,
    );
  });
});
