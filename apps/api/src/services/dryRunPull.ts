import {
  bestFitting,
  ggufChoices,
  type HubFile,
  isModelGguf,
  type PullChoice,
  type PullDryRun,
  type PullRequest,
  pullChoiceOf,
  selectionName,
} from "@llmgw/domain";
import type { Deps } from "../deps";
import { hubError } from "../hub/hubErrors";
import { resolveUrl } from "../hub/hubHttp";
import { checkDownload, headerAt } from "../hub/hubRepo";
import { type PlannedPull, planPull } from "./planPull";

/** Headers read at once: each is a Range request or two of 2 MB. */
const HEADERS_AT_ONCE = 4;

/**
 * SPEC §10.3: every quantisation with its size, the memory a replica of it would ask for (from its
 * header, read by Range) and on how many ready nodes one fits now, so the operator picks what the
 * fleet can run before downloading anything. Writes nothing. The download access is checked as a
 * pull checks it: a gated repo without a usable token is the same 403 here.
 */
export async function dryRunPull({ deps, input }: { deps: Deps; input: PullRequest }): Promise<PullDryRun> {
  const plan = await planPull(deps, input);
  const at = { access: plan.access, repo: plan.repo, revision: plan.revision };
  try {
    const first = plan.selection.files[0];
    if (first) await checkDownload(plan.access, plan.repo, plan.commit, first.path);
    // The dry run offers every quantisation, whatever the request picked; with globs, just those files.
    const offered: [string, HubFile[]][] =
      plan.selection.kind === "gguf"
        ? [...ggufChoices(plan.listing)]
        : [[selectionName(plan.selection), plan.selection.files]];
    const snap = await deps.world.snapshot();
    const choices = await inBatches(offered, HEADERS_AT_ONCE, async ([quant, files]) =>
      pullChoiceOf({ quant, files, header: await firstHeader(plan, files), index: snap.index }),
    );
    return {
      repo: plan.repo,
      commit: plan.commit,
      choices,
      picked: selectionName(plan.selection),
      best: bestFitting(choices),
    };
  } catch (err) {
    throw hubError(err, at);
  }
}

/** The header of the first GGUF file (part 1 of a split one, by name); null when there is none. */
async function firstHeader(plan: PlannedPull, files: readonly HubFile[]) {
  const gguf = files.find((f) => isModelGguf(f.path));
  return gguf ? headerAt(plan.access, resolveUrl(plan.access, plan.repo, plan.commit, gguf.path)) : null;
}

async function inBatches<T>(
  items: readonly [string, HubFile[]][],
  size: number,
  each: (item: [string, HubFile[]]) => Promise<T>,
): Promise<T[]> {
  const out: T[] = [];
  for (let i = 0; i < items.length; i += size) {
    out.push(...(await Promise.all(items.slice(i, i + size).map(each))));
  }
  return out;
}

export type { PullChoice };
