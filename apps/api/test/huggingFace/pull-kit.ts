import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { isDryRun, type Pull, type PullDryRun, type PullRequest, pullEnded } from "@llmgw/domain";
import { afterAll, afterEach, beforeAll, beforeEach, expect } from "vitest";
import { PullRunner } from "../../src/services/pullRunner";
import type { Api } from "../harness";
import { StandInHub } from "../kit";

// What the pull suites share: a stand-in Hub for the file, the app pointed at it, and the calls a
// test makes: start a pull, wait for it to end, read what the mirror holds.

export const TOKEN = "hf_stand_in_token";

export interface PullKit {
  readonly hub: StandInHub;
  /** Where repos' files are written before the stand-in serves them. */
  readonly files: string;
}

export function usePullKit(api: Api, options: { token?: string | null } = {}): PullKit {
  let hub: StandInHub | null = null;
  let files = "";
  beforeAll(async () => {
    hub = await StandInHub.start();
    files = await mkdtemp(join(tmpdir(), "llmgw-hub-files-"));
  });
  beforeEach(async () => {
    if (!hub) return;
    api.deps.config.huggingface = {
      endpoint: hub.url,
      token: options.token === undefined ? TOKEN : options.token,
    };
    // Retries a few milliseconds apart: a test waits on the outcome, not on the backoff.
    api.control.pulls = new PullRunner({ backoffMs: 5 });
    hub.requests.length = 0;
    hub.knobs.bytesPerSecond = null;
    hub.knobs.cutAfter.clear();
    hub.knobs.failNext.clear();
    hub.knobs.intercept = null;
    hub.tokens.clear();
  });
  // Each test's runner stops with it: one left going would claim the next test's pulls, out of reach
  // of the next runner's cancel.
  afterEach(() => api.control.pulls.stop());
  afterAll(async () => {
    await api.control.pulls.stop();
    await hub?.close();
    await rm(files, { recursive: true, force: true });
  });
  return {
    get hub() {
      if (!hub) throw new Error("the stand-in Hub starts in beforeAll");
      return hub;
    },
    get files() {
      return files;
    },
  };
}

export function postPull(api: Api, body: PullRequest) {
  return api.client.mirror.pulls.$post({ json: body });
}

/** A pull that must be accepted (202). */
export async function pullOk(api: Api, body: PullRequest): Promise<Pull> {
  const res = await postPull(api, body);
  const answer = await res.json();
  expect({ status: res.status, answer }).toMatchObject({ status: 202 });
  if (isDryRun(answer)) throw new Error("a pull answered a dry run");
  return answer;
}

/** A dry run that must be answered (200). */
export async function dryRunOk(api: Api, body: Omit<PullRequest, "dryRun">): Promise<PullDryRun> {
  const res = await postPull(api, { ...body, dryRun: true });
  const answer = await res.json();
  expect({ status: res.status, answer }).toMatchObject({ status: 200 });
  if (!isDryRun(answer)) throw new Error("a dry run answered a pull");
  return answer;
}

export async function pullNow(api: Api, id: string): Promise<Pull> {
  const res = await api.client.mirror.pulls[":id"].$get({ param: { id } });
  expect(res.status).toBe(200);
  return res.json();
}

/** Waits for the pull to end (complete, failed, cancelled) and for its runner to let go of it. */
export async function ended(api: Api, id: string): Promise<Pull> {
  await expect.poll(async () => pullEnded((await pullNow(api, id)).state), { timeout: 20_000 }).toBe(true);
  await api.control.pulls.settled(id);
  return pullNow(api, id);
}

/** Every file under the mirror, as paths relative to it, sorted. */
export async function mirrorFiles(api: Api): Promise<string[]> {
  const all = await readdir(api.mirrorDir, { recursive: true, withFileTypes: true });
  return all
    .filter((e) => e.isFile())
    .map((e) => relative(api.mirrorDir, join(e.parentPath, e.name)))
    .sort();
}
