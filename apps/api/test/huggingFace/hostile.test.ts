import { mkdir, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { ggufFileAt, type HostileCase, hostile, randomLfsFile } from "../kit";
import { expectAnswers, memoryMB, postPull, pullOf, SLACK_MS, useHostileServer } from "./hostile-kit";

// SPEC §10.5a against a real `llmgw serve` and a hostile stand-in Hub: each case is refused or
// fails its own pull and the server answers after every one; its memory grows by less than 200 MB
// across the bombs (from /proc); a symlink's target is untouched; a client that goes away ends
// its calls to the Hub. Deadlines and kill -9 are hostile.restart.test.ts's.

const h = useHostileServer();

describe("a hostile Hub against llmgw serve", () => {
  it("refuses a file name over 240 bytes (502 unsafe_listing) and writes nothing", async () => {
    const n = h.next();
    const repo = `hostile/Long${n}-GGUF`;
    await h.hub.addRepo({ repo, files: [randomLfsFile(`${"L".repeat(296)}-Q4_K_M.gguf`, 1000)] });
    const answer = await h.withCase(null, "a long name", () => postPull(h.server, { repo }));
    expect(answer.status).toBe(502);
    expect(answer.body.error).toMatchObject({ code: "unsafe_listing" });
    expect(answer.body.error?.message).toContain("bytes (at most 240)");
  });

  it("answers 409 path_taken when the model's or the version's path is a file", async () => {
    const { repo, model } = await h.ggufRepo();
    await writeFile(h.mirror(model), "a file where the model's folder goes\n");
    const asModel = await h.withCase(null, "a model path taken", () => postPull(h.server, { repo }));
    expect(asModel.status).toBe(409);
    expect(asModel.body.error).toMatchObject({ code: "path_taken" });
    await rm(h.mirror(model));
    await mkdir(h.mirror(model));
    await writeFile(h.mirror(model, "Q4_K_M"), "a file where the version's folder goes\n");
    const asVersion = await h.withCase(null, "a version path taken", () => postPull(h.server, { repo }));
    expect(asVersion.status).toBe(409);
    expect(asVersion.body.error?.message).toContain("version path");
  });

  it.each([".part", ".size"])(
    "fails a pull whose %s is a symlink, naming it, and leaves its target as it was",
    async (suffix) => {
      const { repo, model, file } = await h.ggufRepo();
      const outside = join(h.root, `outside${suffix}`);
      await writeFile(outside, "not the mirror's\n");
      await mkdir(h.mirror(model, "Q4_K_M"), { recursive: true });
      await symlink(outside, h.mirror(model, "Q4_K_M", `${file.path}${suffix}`));
      const started = await h.withCase(null, `a ${suffix} symlink`, () => postPull(h.server, { repo }));
      expect(started.status).toBe(202);
      const id = String(started.body.id);
      await expect.poll(async () => (await pullOf(h.server, id)).state, { timeout: 20_000 }).toBe("failed");
      expect((await pullOf(h.server, id)).error).toContain("is a symlink");
      expect(await readFile(outside, "utf8")).toBe("not the mirror's\n");
      await expectAnswers(h.server, `a ${suffix} symlink's pull`);
    },
  );

  it.each([
    ["a negative size", { size: -5 }],
    ["a size that is text", { size: "12" }],
    ["a fractional size", { size: 1.5 }],
    ["a SHA-256 that is not one", { oid: "not-a-sha" }],
  ])("answers 502 bad_listing for %s, never a 500", async (_what, listedAs) => {
    const n = h.next();
    const repo = `hostile/Sizes${n}-GGUF`;
    await h.hub.addRepo({ repo, files: [{ ...randomLfsFile(`Sizes${n}-Q4_K_M.gguf`, 1000), listedAs }] });
    for (const dryRun of [true, false]) {
      const answer = await h.withCase(null, "a wrong-kind listing", () =>
        postPull(h.server, { repo, dryRun }),
      );
      expect({ status: answer.status, code: answer.body.error?.code }).toEqual({
        status: 502,
        code: "bad_listing",
      });
    }
  });

  describe("bombs", () => {
    let before = 0;
    beforeAll(async () => {
      // One ordinary dry run first: what loading the code for one costs is not the bombs'.
      const { repo } = await h.ggufRepo();
      expect((await postPull(h.server, { repo, dryRun: true })).status).toBe(200);
      before = await memoryMB(h.server, "VmRSS");
    });

    it("refuses a listing that inflates past 64 MB (a 256 MiB gzip bomb)", async () => {
      const { repo } = await h.ggufRepo();
      const bomb = hostile.gzipListing();
      const answer = await h.withCase(bomb, "a gzip listing", () =>
        postPull(h.server, { repo, dryRun: true }),
      );
      expect({ status: answer.status, code: answer.body.error?.code }).toEqual({
        status: 502,
        code: "bad_listing",
      });
      expect(answer.body.error?.message).toContain("over 64 MB");
    });

    it("refuses a listing whose next page is itself, or that runs past 1,000 pages", async () => {
      const { repo } = await h.ggufRepo();
      const loop = hostile.selfLinkListing();
      const looped = await h.withCase(loop, "a self link", () => postPull(h.server, { repo, dryRun: true }));
      expect(looped.body.error).toMatchObject({ code: "bad_listing" });
      expect(looped.body.error?.message).toContain("already sent");
      expect(loop.count).toBe(1);
      const endless = hostile.endlessListing();
      const long = await h.withCase(endless, "endless pages", () =>
        postPull(h.server, { repo, dryRun: true }),
      );
      expect(long.body.error).toMatchObject({ code: "bad_listing" });
      expect(long.body.error?.message).toContain("1000 pages");
      expect(endless.count).toBe(1000);
    }, 60_000);

    it("takes no compressed answer to a Range, and reads no further than the range", async () => {
      const { repo } = await h.ggufRepo();
      const gzip = hostile.gzipRange();
      const oversized = hostile.oversizedRange();
      for (const bomb of [gzip, oversized]) {
        const answer = await h.withCase(bomb, "a range bomb", () =>
          postPull(h.server, { repo, dryRun: true }),
        );
        // The header is unreadable, so the quantisation is offered with its refusal, not a 500.
        expect(answer.status).toBe(200);
        const [choice] = answer.body.choices as { refusal: string | null }[];
        expect(choice?.refusal).toEqual(expect.any(String));
        expect(bomb.count).toBeGreaterThan(0);
      }
      // 128 MiB offered for a 2 MB range: the server cut it after the range's length, not at the end.
      await expect.poll(() => oversized.held[0]?.closedAt ?? null, { timeout: 5000 }).not.toBeNull();
      expect(oversized.held[0]?.bytesSent).toBeLessThan(32 * 1024 * 1024);
    });

    it("offers at most 64 quantisations and reads at most 4 headers at once", async () => {
      const n = h.next();
      const gguf = await ggufFileAt(h.root, `Many${n}.gguf`, 4096);
      const files = Array.from({ length: 70 }, (_, i) => ({
        ...gguf,
        path: `many-${String(i).padStart(3, "0")}.gguf`,
      }));
      // The one a pull takes sorts last: it is offered all the same.
      files.push({ ...gguf, path: "zz-Q4_K_M.gguf" });
      const repo = `hostile/Many${n}-GGUF`;
      await h.hub.addRepo({ repo, files });
      let inFlight = 0;
      let most = 0;
      const read = new Set<string>();
      const counting: HostileCase = {
        held: [],
        count: 0,
        intercept({ origin, req, res, url }) {
          if (origin !== "cdn" || req.headers.range === undefined) return false;
          read.add(url.searchParams.get("path") ?? "");
          most = Math.max(most, ++inFlight);
          res.once("close", () => inFlight--);
          return false;
        },
      };
      const answer = await h.withCase(counting, "many quantisations", () =>
        postPull(h.server, { repo, dryRun: true }),
      );
      expect(answer.status).toBe(200);
      const choices = answer.body.choices as { quant: string }[];
      expect(choices).toHaveLength(64);
      expect(choices.at(-1)?.quant).toBe("Q4_K_M");
      expect(answer.body.picked).toBe("Q4_K_M");
      expect(read.size).toBe(64);
      expect(most).toBeLessThanOrEqual(4);
    }, 60_000);

    it("grew by less than 200 MB across them", async () => {
      const most = await memoryMB(h.server, "VmHWM");
      const now = await memoryMB(h.server, "VmRSS");
      console.info(
        `llmgw serve: ${before.toFixed(0)} MB before the bombs, ${now.toFixed(0)} MB after, ${most.toFixed(0)} MB at most`,
      );
      expect(most - before).toBeLessThan(200);
    });
  });

  it("lets go of the Hub when the client that asked goes away", async () => {
    const { repo } = await h.ggufRepo();
    const silent = hostile.silent();
    h.hub.knobs.intercept = (at) => silent.intercept(at);
    const gone = await postPull(h.server, { repo, dryRun: true }, AbortSignal.timeout(500)).catch(
      (err: unknown) => err,
    );
    expect(gone).toBeInstanceOf(Error);
    // timeoutSeconds is 60 here: only the client's going away ends the Hub's request this soon.
    await expect.poll(() => silent.held[0]?.closedAt ?? null, { timeout: SLACK_MS }).not.toBeNull();
    h.hub.knobs.intercept = null;
    await expectAnswers(h.server, "a client gone");
  }, 30_000);
});
