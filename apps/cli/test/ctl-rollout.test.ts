import { join } from "node:path";
import { llama3_8b, writeGgufFile } from "@llmgw/simulation";
import { describe, expect, it } from "vitest";
import { fresh, useCtl } from "./ctl-harness";

// `llmgw ctl model rollout` (SPEC §11.5): starts, promotes and aborts rollouts; --wait follows one
// on stderr and ends 1 with the reason when it is rolled back.

const api = useCtl();

describe("model rollout", () => {
  it("rolls out a new source as a canary, and model show says where it stands", async () => {
    const name = fresh("roll");
    await api.addModel({ name });

    const run = await api.ctl([
      "model",
      "rollout",
      name,
      "--source",
      "http://mirror.test/m/v2/m.gguf",
      "--canary",
      "10",
    ]);

    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`${name}: revision 1 → 2 canary (10 % of requests)`);
    const shown = await api.ctl(["model", "show", name]);
    expect(shown.stdout).toMatch(/^revision +2; rollout revision 1 → 2 canary \(10 % of requests\)/m);
    const promoted = await api.ctl(["model", "rollout", name, "--promote"]);
    expect(promoted.code).toBe(0);
    expect(promoted.stdout).toContain("revision 1 → 2 rolling");
  });

  it("refuses a promote with nothing held, and a rollout with nothing to roll out", async () => {
    const name = fresh("none");
    await api.addModel({ name });

    const promote = await api.ctl(["model", "rollout", name, "--promote"]);
    expect(promote.code).toBe(1);
    expect(promote.stderr).toContain("no canary held");
    const bare = await api.ctl(["model", "rollout", name]);
    expect(bare.code).toBe(2);
    expect(bare.stderr).toContain("--source URL, --version V or --args");
    const version = await api.ctl(["model", "rollout", name, "--version", "v9"]);
    expect(version.stderr).toContain(`the mirror holds no version v9 of ${name}`);
  });

  it("--wait follows on stderr and ends 1 with the reason when the rollout is undone", async () => {
    const name = fresh("wait");
    await api.addModel({ name });

    const waiting = api.ctl(["model", "rollout", name, "--args=--ctx-size 2048", "--wait"]);
    for (let i = 0; i < 100; i++) {
      const m = await (await api.client().models[":name"].$get({ param: { name } })).json();
      if (m.rollout?.state === "rolling") break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const abort = await api
      .client()
      .models[":name"].rollout.$post({ param: { name }, json: { action: "abort" } });
    expect(abort.status).toBe(200);
    const run = await waiting;

    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`${name}: revision 1 → 2 rolling`);
    expect(run.stderr).toContain(`${name}: aborted by local`);
  });

  it("--version takes a version of the mirror's model the catalogue model runs, whatever its name", async () => {
    const mirrored = fresh("instruct");
    for (const version of ["Q4", "Q8"]) {
      await writeGgufFile(
        join(api.deps.config.mirror.dir, mirrored, version, `${mirrored}-${version}.gguf`),
        llama3_8b(),
      );
    }
    await api.deps.mirror.scan();
    const entries = await (await api.client().mirror.$get()).json();
    const sourceOf = (version: string) =>
      entries.find((v) => v.model === mirrored && v.version === version)?.plan.source;
    const name = fresh("short");
    await api.addModel({ name, source: sourceOf("Q4") });

    const run = await api.ctl(["model", "rollout", name, "--version", "Q8"]);

    expect(run.code, run.stderr).toBe(0);
    const m = await (await api.client().models[":name"].$get({ param: { name } })).json();
    expect(m.source).toBe(sourceOf("Q8"));
    expect(m.rollout?.to).toBe(2);
    const missing = await api.ctl(["model", "rollout", name, "--version", "Q2"]);
    expect(missing.stderr).toContain(`the mirror holds no version Q2 of ${mirrored} (it holds Q4, Q8)`);
  });
});
