import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../src/config";
import { configFile, problemOf } from "./configFiles";
import { tempDir } from "./mirror/fixtures";

// loadConfig (SPEC §4): every key optional; a wrong file stops start-up naming the file, the line
// and the path inside it; flags win over the environment, which wins over the file.

describe("loadConfig", () => {
  it("runs with no file at all, on loopback port 8080 with ./data", () => {
    const config = loadConfig({}, {});

    expect(config).toMatchObject({
      file: null,
      listen: { host: "127.0.0.1", port: 8080 },
      dataDir: join(process.cwd(), "data"),
      mirror: {
        dir: join(process.cwd(), "data", "mirror"),
        baseUrl: "http://127.0.0.1:8080",
        baseUrlSet: false,
      },
      heartbeatSeconds: 5,
      quotas: [],
      tokens: [],
      models: [],
      scheduler: true,
      databaseUrl: null,
    });
  });

  it("reads every key of a file, resolving relative paths against the file's directory", async () => {
    const file = await configFile(
      [
        "listen: 0.0.0.0:9000",
        "dataDir: ./state",
        "mirror: { dir: ./weights, baseUrl: http://mirror.example:9000/ }",
        "heartbeatSeconds: 10",
        "classes: [{ name: gold, rank: 10 }]",
        "quotas: [{ owner: research, memoryGB: 256, cpuCores: 64, gpus: null, replicas: 20 }]",
        "models:",
        "  - name: tiny",
        "    source: http://mirror.example:9000/mirror/tiny/q4/tiny.gguf",
        "    contextLength: 4096",
        "    class: gold",
        "    scaling: { min: 1, max: 1 }",
        "    profiles: [{ name: cpu, engine: llamacpp, minMemoryGB: 2, cpuCores: 2 }]",
      ].join("\n"),
    );
    const dir = join(file, "..");

    const config = loadConfig({ config: file }, {});

    expect(config).toMatchObject({
      file,
      listen: { host: "0.0.0.0", port: 9000 },
      dataDir: join(dir, "state"),
      mirror: { dir: join(dir, "weights"), baseUrl: "http://mirror.example:9000", baseUrlSet: true },
      heartbeatSeconds: 10,
      classes: [{ name: "gold", rank: 10, description: "" }],
      quotas: [{ owner: "research", memoryGB: 256 }],
    });
    expect(config.models).toEqual([
      expect.objectContaining({
        name: "tiny",
        class: "gold",
        owner: "",
        aliases: [],
        routingProfile: "chat",
      }),
    ]);
  });

  it("refuses a wrong value naming the file, the line and the path inside it", async () => {
    const file = await configFile(
      [
        "models:",
        "  - name: tiny",
        "    source: http://127.0.0.1:8080/mirror/tiny/q4/tiny.gguf",
        "    contextLength: -5",
        "    scaling: { min: 1, max: 1 }",
        "    profiles: [{ name: cpu, engine: llamacpp }]",
      ].join("\n"),
    );

    const message = problemOf(() => loadConfig({ config: file }, {}));

    expect(message).toMatch(new RegExp(`^${literally(file)}:4: models\\[0\\]\\.contextLength: `));
  });

  it("takes the request path's bounds, engineIdleSeconds included (120 when not given)", async () => {
    expect(loadConfig({}, {}).gateway).toEqual({
      maxQueue: 256,
      maxWaitSeconds: 300,
      bodyLimitMB: 32,
      engineIdleSeconds: 120,
    });
    const file = await configFile("gateway: { engineIdleSeconds: 30 }\n");
    expect(loadConfig({ config: file }, {}).gateway.engineIdleSeconds).toBe(30);

    for (const wrong of ["0", "1.5", "100000", "soon"]) {
      const bad = await configFile(`gateway:\n  engineIdleSeconds: ${wrong}\n`);
      expect(
        problemOf(() => loadConfig({ config: bad }, {})),
        wrong,
      ).toMatch(new RegExp(`^${literally(bad)}:2: gateway\\.engineIdleSeconds: `));
    }
  });

  it("reads the autoscaling window and drain bound (SPEC §9.3), and refuses a negative window naming it", async () => {
    expect(loadConfig({}, {}).autoscale).toEqual({ scaleDownSeconds: 300, drainSeconds: 300 });
    const tuned = await configFile("autoscale: { scaleDownSeconds: 2.5, drainSeconds: 30 }\n");
    expect(loadConfig({ config: tuned }, {}).autoscale).toEqual({ scaleDownSeconds: 2.5, drainSeconds: 30 });

    const file = await configFile("autoscale:\n  scaleDownSeconds: -1\n");
    expect(problemOf(() => loadConfig({ config: file }, {}))).toMatch(
      new RegExp(`^${literally(file)}:2: autoscale\\.scaleDownSeconds: must be 0 or more seconds`),
    );
  });

  it("refuses a key it does not know, naming it", async () => {
    const file = await configFile("listen: 127.0.0.1:8080\nheartbeat: 5\n");

    expect(problemOf(() => loadConfig({ config: file }, {}))).toContain(file);
    expect(problemOf(() => loadConfig({ config: file }, {}))).toContain("heartbeat");
  });

  it("refuses YAML that does not parse, with the line and column", async () => {
    const file = await configFile("listen: 127.0.0.1:8080\nmodels: [\n");

    expect(problemOf(() => loadConfig({ config: file }, {}))).toMatch(
      new RegExp(`^${literally(file)}:\\d+:\\d+: not valid YAML`),
    );
  });

  it("refuses a file it cannot read, naming it", async () => {
    const missing = join(await tempDir(), "absent.yaml");

    expect(problemOf(() => loadConfig({ config: missing }, {}))).toBe(`${missing}: cannot read it (ENOENT)`);
  });

  it("refuses two declared models sharing a name or alias, and a class the file does not define", async () => {
    const model = (name: string, extra = "") =>
      `  - { name: ${name}, source: "http://mirror.example/${name}.gguf", contextLength: 1, scaling: { min: 0, max: 0 }, profiles: [{ name: cpu, engine: llamacpp }]${extra} }`;
    const twice = await configFile(["models:", model("a", ", aliases: [b]"), model("b")].join("\n"));
    const classless = await configFile(["models:", model("a", ", class: platinum")].join("\n"));

    expect(problemOf(() => loadConfig({ config: twice }, {}))).toBe(
      `${twice}: models[1]: the name "b" is already used by models[0]`,
    );
    expect(problemOf(() => loadConfig({ config: classless }, {}))).toBe(
      `${classless}: models[0].class: no class called "platinum"`,
    );
  });

  it("takes flags over the environment, and the environment over the file", async () => {
    const file = await configFile("listen: 127.0.0.1:7001\ndataDir: /srv/from-file\n");
    const env = { LLMGW_LISTEN: "127.0.0.1:7002", LLMGW_DATA_DIR: "/srv/from-env" };

    const fromFile = loadConfig({ config: file }, {});
    const fromEnv = loadConfig({ config: file }, env);
    const fromFlags = loadConfig({ config: file, listen: "127.0.0.1:7003", dataDir: "/srv/from-flag" }, env);

    expect([fromFile.listen.port, fromFile.dataDir]).toEqual([7001, "/srv/from-file"]);
    expect([fromEnv.listen.port, fromEnv.dataDir]).toEqual([7002, "/srv/from-env"]);
    expect([fromFlags.listen.port, fromFlags.dataDir]).toEqual([7003, "/srv/from-flag"]);
  });

  it("reads a relative data directory from a flag or the environment where the command runs, from the file beside it", async () => {
    const file = await configFile("dataDir: ./beside\n");
    const dir = join(file, "..");

    expect(loadConfig({ config: file }, {}).dataDir).toBe(join(dir, "beside"));
    expect(loadConfig({ config: file, dataDir: "here" }, {}).dataDir).toBe(join(process.cwd(), "here"));
    expect(loadConfig({ config: file }, { LLMGW_DATA_DIR: "env" }).dataDir).toBe(join(process.cwd(), "env"));
  });

  it("finds the file from LLMGW_CONFIG when no flag names one, the flag winning", async () => {
    const fromEnv = await configFile("heartbeatSeconds: 11\n");
    const fromFlag = await configFile("heartbeatSeconds: 12\n");

    expect(loadConfig({}, { LLMGW_CONFIG: fromEnv }).heartbeatSeconds).toBe(11);
    expect(loadConfig({ config: fromFlag }, { LLMGW_CONFIG: fromEnv }).heartbeatSeconds).toBe(12);
  });

  it("reads LLMGW_SCHEDULER=off and DATABASE_URL from the environment", () => {
    const config = loadConfig({}, { LLMGW_SCHEDULER: "off", DATABASE_URL: "postgres://db.example/llmgw" });

    expect(config).toMatchObject({ scheduler: false, databaseUrl: "postgres://db.example/llmgw" });
  });

  it("refuses a listen address that is not HOST:PORT, from wherever it came", () => {
    expect(problemOf(() => loadConfig({ listen: "8080" }, {}))).toContain("HOST:PORT");
    expect(problemOf(() => loadConfig({}, { LLMGW_LISTEN: "localhost" }))).toContain("HOST:PORT");
  });
});

function literally(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
