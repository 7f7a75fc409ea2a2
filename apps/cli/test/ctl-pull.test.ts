import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { addGgufRepo, StandInHub } from "@llmgw/api/testing";
import { type Pull, pullDryRunSchema } from "@llmgw/domain";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { cells, fresh, rowOf, useCtl } from "./ctl-harness";

// `llmgw ctl mirror pull` (SPEC §10.6) against the API in process and a stand-in Hub on loopback:
// the dry run's table, a pull watched to its end with a progress line on stderr, and its exits.

const t = useCtl();
const MB = 1_000_000;
let hub: StandInHub;
let files = "";

beforeAll(async () => {
  hub = await StandInHub.start();
  files = await mkdtemp(join(tmpdir(), "llmgw-ctl-hub-"));
});
beforeEach(() => {
  if (hub) t.deps.config.huggingface = { endpoint: hub.url, token: null };
  if (hub) hub.knobs.bytesPerSecond = null;
});
afterAll(async () => {
  await t.control.pulls.stop();
  await hub.close();
  await rm(files, { recursive: true, force: true });
});

async function hubRepo() {
  const name = fresh("Pulled");
  const made = await addGgufRepo(hub, files, {
    repo: `stand-in/${name}-GGUF`,
    quants: { Q4_K_M: 1 * MB, Q8_0: 2 * MB },
  });
  return { repo: `stand-in/${name}-GGUF`, model: `${name.toLowerCase()}-gguf`, stem: name, ...made };
}

describe("llmgw ctl mirror pull", () => {
  it("--dry-run lists each quantisation with its size, memory and the nodes it fits on", async () => {
    await t.addNode({ memoryGB: 64, cpuCount: 16 });
    const { repo, commit } = await hubRepo();

    const run = await t.ctl(["mirror", "pull", repo, "--dry-run"]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout.split("\n")[0]).toBe(`${repo} at ${commit.slice(0, 12)}`);
    expect(cells(run.stdout.split("\n")[1] ?? "")).toEqual([
      "QUANT",
      "FILES",
      "SIZE",
      "MEMORY",
      "FITS ON",
      "NOTE",
    ]);
    const q4 = rowOf(run.stdout, "Q4_K_M");
    expect(q4.slice(0, 4)).toEqual(["Q4_K_M", "1", "1.0 MB", "2 GB"]);
    expect(q4[5]).toBe("a pull takes this");
    expect(rowOf(run.stdout, "Q8_0")[5]).toBe("best that fits now");

    const json = await t.ctl(["mirror", "pull", `${repo}:Q8_0`, "--dry-run", "--json"]);
    expect(pullDryRunSchema.parse(JSON.parse(json.stdout))).toMatchObject({ repo, picked: "Q8_0" });
  });

  it("pulls REPO:QUANT, a progress line on stderr, and exits 0 with the version in the mirror", async () => {
    const { repo, model, stem } = await hubRepo();
    const run = await t.ctl(["mirror", "pull", `hf.co/${repo}:q8_0`]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toMatch(
      new RegExp(`^pull [0-9a-f-]+: ${repo} at [0-9a-f]{12} into ${model}/Q8_0, 1 file, 2\\.0 MB`),
    );
    expect(run.stderr).toContain(`pull ${model}/Q8_0: `);
    expect(run.stdout).toContain(`pulled ${repo} into ${model}/Q8_0: ${stem}-Q8_0.gguf`);
    expect(await readdir(join(t.deps.mirror.dir, model, "Q8_0"))).toEqual([`${stem}-Q8_0.gguf`]);

    const mirror = await t.ctl(["mirror"]);
    expect(rowOf(mirror.stdout, model)).toEqual(
      expect.arrayContaining([model, "Q8_0", "complete", "llamacpp"]),
    );
  });

  it("takes --file globs, --model and --version, and prints the pull's JSON with --json", async () => {
    const { repo, stem } = await hubRepo();
    const into = fresh("named");
    const run = await t.ctl([
      "mirror",
      "pull",
      repo,
      "--file",
      "*Q4_K_M*",
      "--file",
      "README.md",
      "--model",
      into,
      "--version",
      "v1",
      "--json",
    ]);
    expect(run.code, run.stderr).toBe(0);
    const pulled = JSON.parse(run.stdout) as Pull;
    expect(pulled).toMatchObject({ model: into, version: "v1", state: "complete" });
    expect(pulled.files.map((f) => f.path)).toEqual([`${stem}-Q4_K_M.gguf`, "README.md"]);
    // The progress still goes to stderr; stdout holds the JSON alone.
    expect(run.stderr).toContain(`pull ${into}/v1: `);
  });

  it("exits 1 with the reason when the pull fails, and when the server refuses", async () => {
    const { repo, files: made } = await hubRepo();
    const q4 = made.find((f) => f.path.endsWith("Q4_K_M.gguf"));
    if (!q4) throw new Error("no Q4_K_M");
    await hub.addRepo({ repo, files: [{ ...q4, sha256: "0".repeat(64) }] });
    const failed = await t.ctl(["mirror", "pull", repo]);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toMatch(/pull [0-9a-f-]+ failed: checksum mismatch for .*Q4_K_M\.gguf/);

    const other = await hubRepo();
    const refused = await t.ctl(["mirror", "pull", `${other.repo}:Q5_K_M`]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`${other.repo} has no Q5_K_M quantisation; it has Q4_K_M, Q8_0`);

    const usage = await t.ctl(["mirror", "pull", "not-a-repo"]);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain("REPO: must be owner/name");
  });

  it("lists pulls, and cancels one (its partial files go)", async () => {
    hub.knobs.bytesPerSecond = 200_000;
    const { repo, model } = await hubRepo();
    const started = await t.client().mirror.pulls.$post({ json: { repo } });
    const pull = (await started.json()) as Pull;
    await expect
      .poll(async () => (await t.deps.store.pulls.get(pull.id))?.bytesDone ?? 0, { timeout: 10_000 })
      .toBeGreaterThan(0);

    const listed = await t.ctl(["mirror", "pulls"]);
    expect(rowOf(listed.stdout, pull.id).slice(0, 4)).toEqual([
      pull.id,
      repo,
      `${model}/Q4_K_M`,
      "downloading",
    ]);
    const cancelled = await t.ctl(["mirror", "cancel", pull.id]);
    expect(cancelled.code, cancelled.stderr).toBe(0);
    expect(cancelled.stdout).toBe(`pull ${pull.id} cancelled\n`);
    await expect(readdir(join(t.deps.mirror.dir, model))).rejects.toThrow(/ENOENT/);
  });
});
