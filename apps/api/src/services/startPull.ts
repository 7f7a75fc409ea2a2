import { createHash, randomUUID } from "node:crypto";
import { stat } from "node:fs/promises";
import { noSpaceMessage, type Pull, type PullRequest } from "@llmgw/domain";
import type { Deps } from "../deps";
import { AppError } from "../errors";
import { hubError } from "../huggingFace/hubErrors";
import { checkDownload } from "../huggingFace/hubRepo";
import { checkPlace } from "../huggingFace/place";
import { commit, UNCHANGED } from "./commit";
import type { ControlFace } from "./control";
import { planPull } from "./planPull";
import { bytesStillNeeded, filesToWrite, freeBytes } from "./pullRunner";

/**
 * `POST /mirror/pulls` (SPEC §10.4): plans the pull, checks before answering that the Hub will let
 * the downloads through (a gated repo lists its files to anyone), that nothing of it is in the
 * mirror already and that the disk holds it, then stores it queued (audited) for the runner. The
 * same files asked for again while the first pull is unfinished answer that pull.
 */
export async function startPull({
  deps,
  control,
  input,
  by,
  signal,
}: {
  deps: Deps;
  control: Pick<ControlFace, "nudgePulls">;
  input: PullRequest;
  by: string;
  /** The asking client's: it going away ends the calls to the Hub (SPEC §10.5a). */
  signal?: AbortSignal;
}): Promise<Pull> {
  const plan = await planPull(deps, input, signal);
  const files = plan.selection.files;
  const first = files[0];
  try {
    if (first) await checkDownload(plan.access, plan.repo, plan.commit, first.path, plan.call);
  } catch (err) {
    throw hubError(err, { access: plan.access, repo: plan.repo, revision: plan.revision });
  }
  const key = pullKey(
    plan.commit,
    plan.model,
    plan.version,
    files.map((f) => f.path),
  );
  const same = await deps.store.pulls.unfinishedWithKey(key);
  if (same) return same;

  const pull: Pull = {
    id: randomUUID(),
    repo: plan.repo,
    revision: plan.revision,
    commit: plan.commit,
    model: plan.model,
    version: plan.version,
    state: "queued",
    files: files.map((f) => ({
      path: f.path,
      bytes: f.bytes,
      bytesDone: 0,
      sha256: f.sha256,
      gitOid: f.gitOid,
    })),
    bytesDone: 0,
    bytesTotal: files.reduce((sum, f) => sum + f.bytes, 0),
    error: null,
    at: deps.now().toISOString(),
    by,
  };
  const unfinished = await deps.store.pulls.unfinished();
  const into = unfinished.find((p) => p.model === pull.model && p.version === pull.version);
  if (into) {
    throw new AppError({
      code: "conflict",
      message: `pull ${into.id} (${into.repo}) is writing into ${pull.model}/${pull.version}; cancel it or pull into another version`,
    });
  }
  await checkPlace(deps.mirror.dir, pull);
  const writes = filesToWrite(deps, pull);
  for (const w of writes) {
    if (
      await stat(w.dest).then(
        () => true,
        () => false,
      )
    ) {
      throw new AppError({
        code: "conflict",
        message: `${pull.model}/${pull.version} already holds ${w.dest.slice(w.dest.lastIndexOf("/") + 1)}; remove it or pull into another version`,
      });
    }
  }
  // What the pulls already under way will still write is spoken for.
  const spoken = unfinished.reduce((sum, p) => sum + (p.bytesTotal - p.bytesDone), 0);
  const needed = await bytesStillNeeded(writes);
  const free = (await freeBytes(deps.mirror.dir)) - spoken;
  if (needed > free)
    throw new AppError({ code: "no_space", message: noSpaceMessage(needed, free, deps.mirror.dir) });

  const stored = await commit(
    deps,
    async (tx) => {
      const inserted = await tx.pulls.insert(pull, key);
      // Asked twice at the same moment: the other request stored it first.
      if (!inserted) return { result: await tx.pulls.unfinishedWithKey(key), events: [] };
      await tx.audit.append([
        {
          at: pull.at,
          by,
          action: "mirror.pull",
          target: pull.model,
          field: "version",
          before: null,
          after: {
            version: pull.version,
            repo: pull.repo,
            commit: pull.commit,
            files: files.map((f) => f.path),
          },
        },
      ]);
      return { result: inserted, events: [{ type: "mirror.pull", data: inserted }] };
    },
    () => UNCHANGED,
  );
  if (!stored)
    throw new AppError({
      code: "conflict",
      message: "the same pull was just started and has already ended; ask again",
    });
  control.nudgePulls();
  return stored;
}

/** What makes two pulls the same: the commit, where they write, and the files. */
function pullKey(commit: string, model: string, version: string, paths: readonly string[]): string {
  return createHash("sha256")
    .update(JSON.stringify([commit, model, version, [...paths].sort()]))
    .digest("hex");
}
