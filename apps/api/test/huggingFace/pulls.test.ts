import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { beatOk, errorOf, heartbeat, useApi } from "../harness";
import { addGgufRepo, addSafetensorsRepo } from "../kit";
import { dryRunOk, ended, mirrorFiles, postPull, pullNow, pullOk, usePullKit } from "./pull-kit";

// SPEC §10: pulls from a stand-in Hub into the mirror, through the API as the dashboard and
// `llmgw ctl mirror pull` make them.

const api = useApi();
const kit = usePullKit(api);
const MB = 1_000_000;

let sequence = 0;
/** A GGUF repo with three quantisations and a split one, under a fresh name. */
async function ggufRepo(options: { gated?: boolean } = {}) {
  const repo = `stand-in/Tiny-${++sequence}-GGUF`;
  const made = await addGgufRepo(kit.hub, kit.files, {
    repo,
    quants: { Q2_K: 1 * MB, Q4_K_M: 2 * MB, Q8_0: 3 * MB },
    split: { quant: "Q6_K", parts: 2, bytesEach: 1.5 * MB },
    ...options,
  });
  return { repo, model: `tiny-${sequence}-gguf`, stem: `Tiny-${sequence}`, ...made };
}

describe("a dry run", () => {
  it("shows every quantisation with its size, memory and the ready nodes it fits on, reading only ranges and writing nothing", async () => {
    await beatOk(api, heartbeat({ node: { memoryGB: 1, cpuCount: 4 } }));
    await beatOk(api, heartbeat({ node: { memoryGB: 16, cpuCount: 8 } }));
    const { repo, commit, stem } = await ggufRepo();

    const dry = await dryRunOk(api, { repo });

    expect(dry).toMatchObject({ repo, commit, picked: "Q4_K_M" });
    expect(dry.choices.map((c) => [c.quant, c.bytes, c.files.length])).toEqual([
      ["Q2_K", 1 * MB, 1],
      ["Q4_K_M", 2 * MB, 1],
      ["Q6_K", 3 * MB, 2],
      ["Q8_0", 3 * MB, 1],
    ]);
    // A few MB of weights, 32 MiB of KV cache, 1 GiB for the engine: 2 GB, which one node holds.
    for (const choice of dry.choices) expect(choice).toMatchObject({ estimateGB: 2, fits: 1, refusal: null });
    expect(dry.best).toBe("Q6_K");
    expect(dry.choices.find((c) => c.quant === "Q6_K")?.files[0]?.path).toBe(
      `Q6_K/${stem}-Q6_K-00001-of-00002.gguf`,
    );

    const downloads = kit.hub.requestsTo("cdn").filter((r) => r.method === "GET");
    expect(downloads.length).toBeGreaterThan(0);
    for (const r of downloads) expect(r.range).toMatch(/^bytes=0-\d+$/);
    expect(await mirrorFiles(api)).toEqual([]);
    expect(await (await api.client.mirror.pulls.$get()).json()).toEqual([]);
  });
});

describe("a pull", () => {
  it("takes Q4_K_M by default into <model>/Q4_K_M, checked, audited, announced, and in the mirror and serve plans", async () => {
    const { repo, model, stem, commit, files } = await ggufRepo();
    const pull = await pullOk(api, { repo });
    expect(pull).toMatchObject({ repo, revision: "main", commit, model, version: "Q4_K_M", state: "queued" });
    expect(pull.files.map((f) => f.path)).toEqual([`${stem}-Q4_K_M.gguf`]);

    expect(await ended(api, pull.id)).toMatchObject({
      state: "complete",
      bytesDone: 2 * MB,
      bytesTotal: 2 * MB,
    });
    expect(await mirrorFiles(api)).toEqual([`${model}/Q4_K_M/${stem}-Q4_K_M.gguf`]);
    // Its SHA-256 is the one computed as it was written: the mirror's hashing (not started in this
    // suite) never read the file.
    const source = files.find((f) => f.path === `${stem}-Q4_K_M.gguf`)?.file ?? "";
    const entries = await (await api.client.mirror.$get()).json();
    expect(entries).toMatchObject([
      {
        model,
        version: "Q4_K_M",
        files: [{ state: "complete", sha256: sha(await readFile(source)) }],
        plan: { engine: "llamacpp", refusal: null },
      },
    ]);
    const audit = await (await api.client.audit.$get({ query: { model } })).json();
    expect(audit).toMatchObject([
      { action: "mirror.pull", target: model, after: { version: "Q4_K_M", repo } },
    ]);
    const events = (await api.deps.store.events.since(0)).filter((e) => e.type === "mirror.pull");
    expect(events.map((e) => e.data.state)).toContain("complete");
  });

  it("takes the quantisation asked, case-insensitively, and every part of a split one", async () => {
    const { repo, model, stem } = await ggufRepo();
    const q8 = await pullOk(api, { repo, quant: "q8_0" });
    const q6 = await pullOk(api, { repo, quant: "Q6_K", version: "six" });
    expect((await ended(api, q8.id)).state).toBe("complete");
    expect((await ended(api, q6.id)).state).toBe("complete");
    expect(await mirrorFiles(api)).toEqual([
      `${model}/Q8_0/${stem}-Q8_0.gguf`,
      `${model}/six/${stem}-Q6_K-00001-of-00002.gguf`,
      `${model}/six/${stem}-Q6_K-00002-of-00002.gguf`,
    ]);
  });

  it("takes what vLLM reads from a safetensors repo, as a version named for the commit", async () => {
    const repo = `stand-in/Dense-${++sequence}`;
    const { commit } = await addSafetensorsRepo(kit.hub, kit.files, repo);
    const pull = await pullOk(api, { repo });
    expect((await ended(api, pull.id)).state).toBe("complete");
    const version = commit.slice(0, 12);
    expect(await mirrorFiles(api)).toEqual(
      [
        "config.json",
        "model-00001-of-00002.safetensors",
        "model-00002-of-00002.safetensors",
        "model.safetensors.index.json",
        "tokenizer.json",
        "tokenizer_config.json",
      ].map((f) => `dense-${sequence}/${version}/${f}`),
    );
    const entries = await (await api.client.mirror.$get()).json();
    expect(entries[0]?.plan).toMatchObject({ engine: "vllm", files: 6 });
  });

  it("resumes a file whose connection was cut, and the file is whole", async () => {
    const { repo, model, stem, files } = await ggufRepo();
    kit.hub.knobs.cutAfter.set(`${stem}-Q4_K_M.gguf`, 700_000);
    const pull = await pullOk(api, { repo });
    expect((await ended(api, pull.id)).state).toBe("complete");
    const ranges = kit.hub.requestsTo("cdn").map((r) => r.range);
    expect(ranges.filter((r) => r?.startsWith("bytes=") && !r.startsWith("bytes=0-"))).toHaveLength(1);
    const source = files.find((f) => f.path === `${stem}-Q4_K_M.gguf`)?.file ?? "";
    const [pulled, original] = await Promise.all([
      readFile(join(api.mirrorDir, model, "Q4_K_M", `${stem}-Q4_K_M.gguf`)),
      readFile(source),
    ]);
    expect(sha(pulled)).toBe(sha(original));
  });

  it("fails on a checksum mismatch, and leaves no file of it anywhere", async () => {
    const repo = `stand-in/Lying-${++sequence}-GGUF`;
    const made = await addGgufRepo(kit.hub, kit.files, { repo, quants: { Q4_K_M: 1 * MB } });
    const q4 = made.files.find((f) => f.path.endsWith("Q4_K_M.gguf"));
    if (!q4) throw new Error("no Q4_K_M file");
    await kit.hub.addRepo({ repo, files: [{ ...q4, sha256: "0".repeat(64) }] });

    const pull = await pullOk(api, { repo });
    expect(await ended(api, pull.id)).toMatchObject({
      state: "failed",
      error: `checksum mismatch for ${q4.path}`,
    });
    expect(await mirrorFiles(api)).toEqual([]);
  });

  it("answers the same pull when the same files are asked for twice, telling its progress at most 4 times a second", async () => {
    kit.hub.knobs.bytesPerSecond = 2 * MB;
    const { repo } = await ggufRepo();
    const started = performance.now();
    const first = await pullOk(api, { repo });
    const again = await pullOk(api, { repo, quant: "Q4_K_M" });
    expect(again.id).toBe(first.id);
    expect((await ended(api, first.id)).state).toBe("complete");
    const seconds = (performance.now() - started) / 1000;
    const told = (await api.deps.store.events.since(0)).filter(
      (e) => e.type === "mirror.pull" && e.data.id === first.id,
    );
    // Queued, downloading and complete, and progress no more often than every quarter second.
    expect(told.length).toBeGreaterThan(3);
    expect(told.length).toBeLessThanOrEqual(3 + Math.ceil(seconds * 4));
  });

  it("downloads at most two pulls at once; the third waits queued", async () => {
    kit.hub.knobs.bytesPerSecond = 1 * MB;
    const { repo } = await ggufRepo();
    const pulls = await Promise.all(["Q2_K", "Q4_K_M", "Q8_0"].map((quant) => pullOk(api, { repo, quant })));
    const most = { n: 0 };
    await expect
      .poll(
        async () => {
          const states = await Promise.all(pulls.map(async (p) => (await pullNow(api, p.id)).state));
          most.n = Math.max(most.n, states.filter((s) => s === "downloading").length);
          return states.every((s) => s === "complete");
        },
        { timeout: 30_000, interval: 100 },
      )
      .toBe(true);
    expect(most.n).toBe(2);
  });

  it("is cancelled: it stops, and its partial files are gone", async () => {
    kit.hub.knobs.bytesPerSecond = 200_000;
    const { repo } = await ggufRepo();
    const pull = await pullOk(api, { repo });
    await expect
      .poll(async () => (await pullNow(api, pull.id)).bytesDone, { timeout: 10_000 })
      .toBeGreaterThan(0);
    expect((await mirrorFiles(api)).some((f) => f.endsWith(".part"))).toBe(true);

    const res = await api.client.mirror.pulls[":id"].$delete({ param: { id: pull.id } });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ id: pull.id, state: "cancelled" });
    expect(await mirrorFiles(api)).toEqual([]);
    expect((await pullNow(api, pull.id)).state).toBe("cancelled");

    const done = await api.client.mirror.pulls[":id"].$delete({ param: { id: pull.id } });
    expect(done.status).toBe(200);
    const unknown = await api.client.mirror.pulls[":id"].$delete({ param: { id: "nonesuch" } });
    expect((await errorOf(unknown, 404)).code).toBe("not_found");
  });
});

describe("a gated repo", () => {
  it("is refused without a usable token, naming HF_TOKEN; with one the bytes come, the token never leaving the Hub", async () => {
    const { repo, model } = await ggufRepo({ gated: true });
    api.deps.config.huggingface = { ...api.deps.config.huggingface, token: null };
    const anonymous = await errorOf(await postPull(api, { repo }), 403);
    expect(anonymous).toMatchObject({ code: "gated" });
    expect(anonymous.message).toContain("HF_TOKEN");
    expect((await errorOf(await postPull(api, { repo, dryRun: true }), 403)).code).toBe("gated");

    api.deps.config.huggingface = { ...api.deps.config.huggingface, token: "hf_without_access" };
    kit.hub.tokens.set("hf_without_access", new Set());
    expect(await errorOf(await postPull(api, { repo }), 403)).toMatchObject({ code: "gated" });

    kit.hub.tokens.set("hf_with_access", new Set([repo]));
    api.deps.config.huggingface = { ...api.deps.config.huggingface, token: "hf_with_access" };
    kit.hub.requests.length = 0;
    const pull = await pullOk(api, { repo });
    expect((await ended(api, pull.id)).state).toBe("complete");
    expect(await mirrorFiles(api)).toHaveLength(1);
    expect(kit.hub.requestsTo("cdn").length).toBeGreaterThan(0);
    expect(kit.hub.requestsTo("cdn").every((r) => r.authorization === null)).toBe(true);
    expect(kit.hub.requestsTo("hub").every((r) => r.authorization === "Bearer hf_with_access")).toBe(true);
    void model;
  });
});

describe("what cannot be pulled", () => {
  it("is 404 repo_not_found for an unknown repo or revision", async () => {
    const unknown = await errorOf(await postPull(api, { repo: "stand-in/nonesuch" }), 404);
    expect(unknown).toMatchObject({ code: "repo_not_found" });
    expect(unknown.message).toContain("stand-in/nonesuch");
    const { repo } = await ggufRepo();
    const revision = await errorOf(await postPull(api, { repo, revision: "v9" }), 404);
    expect(revision).toMatchObject({ code: "repo_not_found", message: `${repo} has no revision v9` });
  });

  it("is 404 no_matching_files for a quantisation the repo lacks, naming those it has", async () => {
    const { repo } = await ggufRepo();
    const res = await postPull(api, { repo, quant: "Q5_K_M" });
    const body = await res.clone().json();
    expect(await errorOf(res, 404)).toMatchObject({
      code: "no_matching_files",
      message: `${repo} has no Q5_K_M quantisation; it has Q2_K, Q4_K_M, Q6_K, Q8_0`,
    });
    expect(body).toMatchObject({ quants: ["Q2_K", "Q4_K_M", "Q6_K", "Q8_0"] });
  });

  it("is 507 no_space, with the numbers, before a byte is written", async () => {
    const { repo, files } = await ggufRepo();
    const q4 = files.find((f) => f.path.endsWith("Q4_K_M.gguf"));
    if (!q4) throw new Error("no Q4_K_M file");
    await kit.hub.addRepo({ repo, files: [{ ...q4, listedBytes: 9e17 }] });
    const refused = await errorOf(await postPull(api, { repo }), 507);
    expect(refused.code).toBe("no_space");
    expect(refused.message).toMatch(
      new RegExp(`^needs 900000000\\.0 GB, [\\d.]+ GB free in ${api.mirrorDir}$`),
    );
    expect(await mirrorFiles(api)).toEqual([]);
    expect(kit.hub.requestsTo("cdn")).toEqual([]);
  });

  it("is refused, with nothing written, when the listing has a path leaving the version's folder", async () => {
    const repo = `stand-in/Sly-${++sequence}-GGUF`;
    await kit.hub.addRepo({
      repo,
      files: [{ path: "../../escape-Q4_K_M.gguf", data: Buffer.from("GGUF"), lfs: true }],
    });
    const refused = await errorOf(await postPull(api, { repo }), 502);
    expect(refused).toMatchObject({ code: "unsafe_listing" });
    expect(refused.message).toContain("leaves the version's folder");
    expect(await mirrorFiles(api)).toEqual([]);
    expect(kit.hub.requestsTo("cdn")).toEqual([]);
  });

  it.each(["not-a-repo", "a/../b", "a/b/c", "a/b\u0000"])("is a 400 naming the repo for %j", async (repo) => {
    const refused = await errorOf(await postPull(api, { repo }), 400);
    expect(refused.fields).toHaveProperty("repo");
  });
});

function sha(bytes: Buffer): string {
  return createHash("sha256").update(bytes).digest("hex");
}
