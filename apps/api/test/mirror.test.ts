import { utimes } from "node:fs/promises";
import { join } from "node:path";
import { llama3_8b, llama31_8b, writeGgufFile, writeNotGguf, writeSafetensorsFile } from "@llmgw/simulation";
import { describe, expect, it, onTestFinished } from "vitest";
import { beatPlaced, createOk, errorOf, heartbeat, modelInput, replicaReport, useApi } from "./harness";
import { GB, sha256Of } from "./mirror/fixtures";

// GET /mirror and /mirror/:model/:version/plan (SPEC §2.2) over files dropped into the mirror
// directory, as an operator's download would leave them.

const api = useApi();

let sequence = 0;
/** Writes one file as `<mirror>/<model>/<version>/<file>` under a fresh model name, and rescans. */
async function drop(file: string, write: (path: string) => Promise<void>, version = "q4_k_m") {
  const model = `mirrored-${++sequence}`;
  await write(join(api.mirrorDir, model, version, file));
  await api.deps.mirror.scan();
  return { model, version, file };
}

function plan(model: string, version: string, ctxPool?: string) {
  return api.client.mirror[":model"][":version"].plan.$get({
    param: { model, version },
    query: ctxPool === undefined ? {} : { ctxPool },
  });
}

describe("a GGUF file dropped into the mirror", () => {
  it("is listed with its header and a serve plan whose memory comes from the model's shape", async () => {
    const file = "Meta-Llama-3.1-8B-Instruct-Q4_K_M.gguf";
    const { model, version } = await drop(file, (path) => writeGgufFile(path, llama31_8b()));

    const entries = await (await api.client.mirror.$get()).json();

    expect(entries).toHaveLength(1);
    const [entry] = entries;
    expect(entry).toMatchObject({
      model,
      version,
      files: [{ file, bytesDone: 4.92 * GB, bytesTotal: 4.92 * GB, state: "complete", error: null }],
      gguf: { architecture: "llama", blockCount: 32, headCount: 32, headCountKV: 8, embeddingLength: 4096 },
    });
    // KV: 32 layers × 8 KV heads × (128 + 128) × 2 bytes × 16384 tokens = 2 GiB; the engine
    // 1 GiB + 5% of the weights; ceil((4.92e9 + 2 GiB + 1 GiB + 246e6) / GiB) = 8.
    expect(entry?.plan).toEqual({
      model,
      version,
      source: `${api.config.mirror.baseUrl}/mirror/${model}/${version}/${file}`,
      engine: "llamacpp",
      profile: "cpu",
      files: 1,
      minMemoryGB: 8,
      cpuCores: 0,
      memoryBasis:
        "weights 4.6 GB + KV cache 2.0 GB for 16384 tokens (32 layers × 8 KV heads) + 1.2 GB for the engine",
      ctxPool: 16384,
      refusal: null,
      warning: null,
      already: false,
    });
  });

  it("has the same plan at /mirror/:model/:version/plan, and a bigger one for a bigger context pool", async () => {
    const { model, version } = await drop("llama.gguf", (path) => writeGgufFile(path, llama31_8b()));
    const listed = (await (await api.client.mirror.$get()).json())[0]?.plan;

    const res = await plan(model, version);
    const wider = await (await plan(model, version, "32768")).json();

    expect(res.status).toBe(200);
    expect(await res.json()).toEqual(listed);
    expect(wider).toMatchObject({ ctxPool: 32768, minMemoryGB: 10 });
    expect(wider.memoryBasis).toContain("KV cache 4.0 GB for 32768 tokens (32 layers × 8 KV heads)");
  });

  it("suggests half the cores of the smallest ready node that holds it", async () => {
    await api.client.agents.heartbeat.$post({ json: heartbeat({ node: { memoryGB: 64, cpuCount: 16 } }) });
    await api.client.agents.heartbeat.$post({ json: heartbeat({ node: { memoryGB: 32, cpuCount: 8 } }) });
    await api.client.agents.heartbeat.$post({ json: heartbeat({ node: { memoryGB: 4, cpuCount: 2 } }) });
    const { model, version } = await drop("llama.gguf", (path) => writeGgufFile(path, llama31_8b()));

    expect((await (await plan(model, version)).json()).cpuCores).toBe(4);
  });

  it("warns when the largest node has less memory than the plan needs", async () => {
    await api.client.agents.heartbeat.$post({ json: heartbeat({ node: { memoryGB: 6, cpuCount: 8 } }) });
    const { model, version } = await drop("llama.gguf", (path) => writeGgufFile(path, llama31_8b()));

    expect((await (await plan(model, version)).json()).warning).toBe(
      "the largest node has 6 GB and this needs about 8",
    );
  });

  it("says `already` for a version whose name a runtime model already has, without refusing", async () => {
    const { model, version } = await drop("llama.gguf", (path) => writeGgufFile(path, llama31_8b()));
    await api.client.models.$post({ json: modelInput({ name: model }) });

    expect(await (await plan(model, version)).json()).toMatchObject({ already: true, refusal: null });
  });
});

describe("versions the nodes cannot serve", () => {
  it("refuses an architecture llama.cpp does not run", async () => {
    const { model, version } = await drop("odd.gguf", (path) =>
      writeGgufFile(path, llama3_8b({ architecture: "t-rex-9000" })),
    );

    expect((await (await plan(model, version)).json()).refusal).toBe(
      'llama.cpp on the nodes cannot run this: llama.cpp does not run the "t-rex-9000" architecture',
    );
  });

  it("refuses a .gguf file that is not GGUF, with the flat memory estimate", async () => {
    const { model, version } = await drop("fake.gguf", (path) => writeNotGguf(path, 3 * GB));

    expect(await (await plan(model, version)).json()).toMatchObject({
      refusal: "llama.cpp on the nodes cannot run this: not a GGUF file",
      memoryBasis: "weights plus half again plus two",
    });
  });

  it("refuses a kind of file nothing here reads", async () => {
    const { model, version } = await drop("weights.onnx", (path) => writeNotGguf(path, 1000));

    expect((await (await plan(model, version)).json()).refusal).toBe("nothing here reads .onnx files");
  });

  it("warns that safetensors need vLLM, which no node has, on a fleet without GPUs", async () => {
    await api.client.agents.heartbeat.$post({ json: heartbeat({ node: { engines: ["llamacpp"] } }) });
    const { model, version } = await drop("model.safetensors", (path) => writeSafetensorsFile(path, 5 * GB));

    expect(await (await plan(model, version)).json()).toMatchObject({
      engine: "vllm",
      profile: "gpu",
      refusal: null,
      warning:
        "no node reports having vllm installed, and .safetensors weights need it. This fleet has no GPU either; a GGUF build of the same model runs on the CPU nodes",
    });
  });
});

describe("GET /mirror/:model/:version/plan errors", () => {
  it("is a 404 for a version the mirror does not have", async () => {
    const { model } = await drop("llama.gguf", (path) => writeGgufFile(path, llama31_8b()));

    const res = await plan(model, "no-such-version");

    expect((await errorOf(res, 404)).code).toBe("not_found");
  });

  it("is a 400 naming ctxPool when it is not a positive number", async () => {
    const { model, version } = await drop("llama.gguf", (path) => writeGgufFile(path, llama31_8b()));

    const res = await plan(model, version, "lots");

    expect(Object.keys((await errorOf(res, 400)).fields ?? {})).toEqual(["ctxPool"]);
  });
});

describe("GET /mirror/:model/:version/:file (outside /api)", () => {
  it("serves the file with Range support", async () => {
    const { model, version, file } = await drop("llama.gguf", (path) => writeGgufFile(path, llama31_8b()));

    const res = await api.app.request(`/mirror/${model}/${version}/${file}`, {
      headers: { Range: "bytes=0-3" },
    });

    expect(res.status).toBe(206);
    expect(Buffer.from(await res.arrayBuffer()).toString("latin1")).toBe("GGUF");
  });
});

describe("SHA-256 of mirrored files (SPEC §8.1)", () => {
  const small = (blockCount = 32) => llama31_8b({ blockCount, weightsBytes: 2_000_000 });
  const listed = async (model: string) =>
    (await (await api.client.mirror.$get()).json()).find((v) => v.model === model)?.files[0]?.sha256;

  it("shows on GET /mirror once computed, and is computed again when the file changes", async () => {
    onTestFinished(api.deps.mirror.hashInBackground());
    const { model, version, file } = await drop("m.gguf", (path) => writeGgufFile(path, small()));
    const path = join(api.mirrorDir, model, version, file);
    await api.deps.mirror.hashed();

    expect(await listed(model)).toBe(await sha256Of(path));

    await writeGgufFile(path, small(40));
    await utimes(path, new Date(), new Date(Date.now() + 5000));
    await api.deps.mirror.scan();
    expect(await listed(model)).toBeNull();
    await api.deps.mirror.hashed();

    expect(await listed(model)).toBe(await sha256Of(path));
  });

  it("is null until computed: a server that has not hashed yet still lists the file", async () => {
    const { model } = await drop("m.gguf", (path) => writeGgufFile(path, small()));

    expect(await listed(model)).toBeNull();
  });
});

describe("a heartbeat's desired replicas list their files (SPEC §8.1)", () => {
  it("lists a mirrored version's files as paths on this server, with size and SHA-256", async () => {
    onTestFinished(api.deps.mirror.hashInBackground());
    const { model, version, file } = await drop("m.gguf", (path) =>
      writeGgufFile(path, llama31_8b({ weightsBytes: 2_000_000 })),
    );
    await api.deps.mirror.hashed();
    const source = (await (await plan(model, version)).json()).source;
    await createOk(api, modelInput({ name: model, source }));

    const reply = await beatPlaced(
      api,
      heartbeat({ replicas: [replicaReport({ model, state: "starting" })] }),
    );

    expect(reply.replicas).toHaveLength(1);
    expect(reply.replicas[0]?.files).toEqual([
      {
        url: `/mirror/${model}/${version}/${file}`,
        path: file,
        bytes: 2_000_000,
        sha256: await sha256Of(join(api.mirrorDir, model, version, file)),
      },
    ]);
  });

  it("lists none for a source outside the mirror: the engine gets the source as it is", async () => {
    const { model } = await drop("m.gguf", (path) =>
      writeGgufFile(path, llama31_8b({ weightsBytes: 2_000_000 })),
    );
    const source = `https://huggingface.co/org/${model}/resolve/main/m.gguf`;
    await createOk(api, modelInput({ name: model, source }));

    const reply = await beatPlaced(
      api,
      heartbeat({ replicas: [replicaReport({ model, state: "starting" })] }),
    );

    expect(reply.replicas.map((r) => [r.source, r.files])).toEqual([[source, []]]);
  });
});
