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
import { HUB_BOUNDS } from "../huggingFace/bounds";
import { hubError } from "../huggingFace/hubErrors";
import { resolveUrl } from "../huggingFace/hubHttp";
import { checkDownload, headerAt } from "../huggingFace/hubRepo";
import { type PlannedPull, planPull } from "./planPull";

/**
 * SPEC §10.3: every quantisation with its size, the memory a replica of it would ask for (from its
 * header, read by Range) and on how many ready nodes one fits now, so the operator picks what the
 * fleet can run before downloading anything. Writes nothing. The download access is checked as a
 * pull checks it: a gated repo without a usable token is the same 403 here.
 */
export async function dryRunPull({
  deps,
  input,
  signal,
}: {
  deps: Pick<Deps, "config" | "world">;
  input: PullRequest;
  /** The asking client's: it going away ends the calls to the Hub (SPEC §10.5a). */
  signal?: AbortSignal;
}): Promise<PullDryRun> {
  const plan = await planPull(deps, input, signal);
  const at = { access: plan.access, repo: plan.repo, revision: plan.revision };
  try {
    const first = plan.selection.files[0];
    if (first) await checkDownload(plan.access, plan.repo, plan.commit, first.path, plan.call);
    // The dry run offers every quantisation, whatever the request picked; with globs, just those files.
    // SPEC §10.5a: at most 64 quantisations, each one header read, at most 4 of them at once.
    const all: [string, HubFile[]][] =
      plan.selection.kind === "gguf"
        ? [...ggufChoices(plan.listing)]
        : [[selectionName(plan.selection), plan.selection.files]];
    const offered = firstWithPicked(all, selectionName(plan.selection), HUB_BOUNDS.quants);
    const snap = await deps.world.snapshot();
    const choices = await inBatches(offered, HUB_BOUNDS.headersAtOnce, async ([quant, files]) =>
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
  const url = gguf ? resolveUrl(plan.access, plan.repo, plan.commit, gguf.path) : null;
  return url ? headerAt(plan.access, url, plan.call) : null;
}

/** The first `most` choices, the one a pull would take among them even when it comes later. */
function firstWithPicked<T extends [string, unknown]>(all: readonly T[], picked: string, most: number): T[] {
  if (all.length <= most) return [...all];
  const first = all.slice(0, most);
  const chosen = all.find(([name]) => name === picked);
  return chosen && !first.includes(chosen) ? [...first.slice(0, most - 1), chosen] : first;
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
