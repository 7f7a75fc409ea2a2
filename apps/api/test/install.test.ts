import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { gunzipSync } from "node:zlib";
import { joinInfoSchema } from "@llmgw/domain";
import { describe, expect, it } from "vitest";
import { createApp } from "../src/app";
import type { Deps } from "../src/deps";
import type { AgentSource } from "../src/install/agentFile";
import { useApi } from "./harness";

// SPEC §5 "Joining a node takes one line": /install.sh and /install/agent.mjs as the app answers
// them, over a stand-in agent file. The script run for real, and the real bundle, are in
// apps/cli/test/join.test.ts and install-script.test.ts.

const api = useApi();

const AGENT = Buffer.from(`console.log("stand-in agent");\n${"// padding\n".repeat(200)}`);
const SHA256 = createHash("sha256").update(AGENT).digest("hex");

/** A source like `llmgw serve`'s, counting its builds; `fail` makes the first ones reject. */
function source(fail = 0): AgentSource & { builds: number } {
  const made = {
    version: "9.8.7",
    builds: 0,
    build: async () => {
      made.builds += 1;
      if (made.builds <= fail) throw new Error("esbuild is not installed\nstack…");
      return { version: "9.8.7", bytes: AGENT, sha256: SHA256 };
    },
  };
  return made;
}

function appWith(agent: AgentSource | null, mirror: Partial<Deps["config"]["mirror"]> = {}) {
  const deps = {
    ...api.deps,
    config: { ...api.deps.config, mirror: { ...api.deps.config.mirror, ...mirror } },
  };
  return createApp(deps, api.control, { agent });
}

const get = (app: ReturnType<typeof createApp>, path: string, headers: Record<string, string> = {}) =>
  app.request(`http://gw.example:8080${path}`, { headers });
/** The API itself answers loopback names only on a server without tokens, as this suite's is. */
const getLocal = (app: ReturnType<typeof createApp>, path: string) =>
  app.request(`http://127.0.0.1:8080${path}`);

describe("GET /install/agent.mjs", () => {
  it("hands out the agent as JavaScript, publicly, with its SHA-256 as a strong ETag", async () => {
    const app = appWith(source());
    const res = await get(app, "/install/agent.mjs");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect(res.headers.get("etag")).toBe(`"${SHA256}"`);
    expect(Buffer.from(await res.arrayBuffer())).toEqual(AGENT);
  });

  it("answers 304 to a client holding it, and the whole file to one holding another", async () => {
    const app = appWith(source());
    const held = await get(app, "/install/agent.mjs", { "if-none-match": `"${SHA256}"` });
    expect(held.status).toBe(304);
    expect(await held.text()).toBe("");
    const other = await get(app, "/install/agent.mjs", { "if-none-match": `"${"0".repeat(64)}"` });
    expect(other.status).toBe(200);
  });

  it("sends it gzipped to a client that takes gzip", async () => {
    const res = await get(appWith(source()), "/install/agent.mjs", { "accept-encoding": "gzip" });
    expect(res.headers.get("content-encoding")).toBe("gzip");
    const zipped = Buffer.from(await res.arrayBuffer());
    expect(zipped.length).toBeLessThan(AGENT.length);
    expect(gunzipSync(zipped)).toEqual(AGENT);
  });

  it("builds it once per app, and again after a build that failed, which is a 503 saying why", async () => {
    const built = source(1);
    const app = appWith(built);
    const failed = await get(app, "/install/agent.mjs");
    expect(failed.status).toBe(503);
    expect(await failed.json()).toEqual({
      error: { code: "internal", message: "the agent could not be built: esbuild is not installed" },
    });
    expect((await get(app, "/install/agent.mjs")).status).toBe(200);
    expect((await get(app, "/install.sh")).status).toBe(200);
    expect(built.builds).toBe(2);
  });

  it("is a 404 on an app started without an agent", async () => {
    const app = appWith(null);
    for (const path of ["/install/agent.mjs", "/install.sh"]) {
      const res = await get(app, path);
      expect(res.status, path).toBe(404);
    }
  });
});

describe("GET /install.sh", () => {
  it("writes in the request's own address, the agent's version and SHA-256, and says where the address came from", async () => {
    const res = await get(appWith(source()), "/install.sh");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    expect(res.headers.get("cache-control")).toBe("no-store");
    const script = await res.text();
    expect(script.split("\n").slice(0, 3)).toEqual([
      "#!/bin/sh",
      "# llmgw: joins this machine to the llmgw server at http://gw.example:8080 as a node.",
      "# Where that address comes from: this script's own request (the server's llmgw.yaml sets no mirror.baseUrl; set it when nodes reach the server at another address).",
    ]);
    expect(script).toContain("SERVER='http://gw.example:8080'\n");
    expect(script).toContain("VERSION='9.8.7'\n");
    expect(script).toContain(`SHA256='${SHA256}'\n`);
    // No tokens configured in this suite's server.
    expect(script).toContain("TOKENS_REQUIRED='no'\n");
    expect(script).not.toMatch(/@[A-Z_0-9]+@/);
  });

  it("names mirror.baseUrl when the configuration sets it (the address behind a proxy)", async () => {
    const app = appWith(source(), { baseUrl: "https://llm.example.org/llmgw", baseUrlSet: true });
    const script = await (await get(app, "/install.sh")).text();
    expect(script).toContain("SERVER='https://llm.example.org/llmgw'\n");
    expect(script).toContain("# Where that address comes from: mirror.baseUrl in the server's llmgw.yaml.\n");
    const info = joinInfoSchema.parse(await (await getLocal(app, "/api/v1/install")).json());
    expect(info).toMatchObject({ server: "https://llm.example.org/llmgw", serverFrom: "mirror.baseUrl" });
  });

  it("is POSIX sh (sh -n)", async () => {
    const script = await (await get(appWith(source()), "/install.sh")).text();
    const checked = spawnSync("sh", ["-n"], { input: script, encoding: "utf8" });
    expect(checked.stderr).toBe("");
    expect(checked.status).toBe(0);
  });

  it("refuses a Host it could not write into a script as it is", async () => {
    const res = await appWith(source()).request("http://gw$(reboot)/install.sh");
    expect(res.status).toBe(400);
    expect(await res.text()).not.toContain("reboot");
  });
});

describe("GET /api/v1/install", () => {
  it("gives the server's version, the address install.sh names and the agent's size, to a viewer", async () => {
    const res = await getLocal(appWith(source()), "/api/v1/install");
    expect(res.status).toBe(200);
    expect(joinInfoSchema.parse(await res.json())).toEqual({
      version: "9.8.7",
      server: "http://127.0.0.1:8080",
      serverFrom: "request",
      agent: { bytes: AGENT.length, sha256: SHA256 },
    });
  });

  it("says the version is unknown and there is no agent on an app started without one", async () => {
    const res = await getLocal(appWith(null), "/api/v1/install");
    expect(joinInfoSchema.parse(await res.json())).toMatchObject({ version: null, agent: null });
  });
});
