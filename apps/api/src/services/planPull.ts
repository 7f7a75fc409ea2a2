import {
  defaultPullModel,
  defaultPullVersion,
  type HubFile,
  mirrorVersionName,
  type PullRequest,
  type PullSelection,
  selectFiles,
  selectionProblem,
} from "@llmgw/domain";
import type { Deps } from "../deps";
import { AppError, badRequest } from "../errors";
import { ListingBudget } from "../huggingFace/bounds";
import { hubError } from "../huggingFace/hubErrors";
import type { HubAccess, HubCall } from "../huggingFace/hubHttp";
import { listFilesAt, resolveRevision } from "../huggingFace/hubRepo";

/** What a request for a repo comes to at the Hub now: the commit, the listing and the files chosen. */
export interface PlannedPull {
  access: HubAccess;
  /** The asking client's signal, for the calls after the plan (SPEC §10.5a). */
  call: HubCall;
  repo: string;
  revision: string;
  commit: string;
  gated: boolean;
  listing: HubFile[];
  selection: PullSelection;
  model: string;
  version: string;
}

/** SPEC §10.1: `huggingface:` in llmgw.yaml, else HF_ENDPOINT (default the public Hub) and HF_TOKEN. */
export function hubAccessOf(deps: Pick<Deps, "config">): HubAccess {
  return deps.config.huggingface;
}

/**
 * Resolves the revision to a commit, lists the files there and chooses (SPEC §10.2), refusing as
 * §10.5 says: an unknown repo or revision, nothing that matches (naming the quantisations there
 * are), or a listing with a path that would leave the version's folder. Writes nothing.
 */
export async function planPull(
  deps: Pick<Deps, "config">,
  input: PullRequest,
  signal?: AbortSignal,
): Promise<PlannedPull> {
  const access = hubAccessOf(deps);
  // One listing's bounds for the whole plan: its pages and bytes (SPEC §10.5a).
  const budget = new ListingBudget();
  const call: HubCall = { signal, budget };
  const revision = input.revision ?? "main";
  const at = { access, repo: input.repo, revision };
  const model = input.model ?? defaultPullModel(input.repo);
  if (model === null) {
    throw badRequest(`${input.repo} makes no model name of 1–64 characters: name it with model`, {
      model: "required: the repo's name is not a model name",
    });
  }
  try {
    // The revision's info counts against the listing's bytes; it is not one of its pages.
    const info = { signal, budget: budget.notPages() };
    const { commit, gated } = await resolveRevision(access, input.repo, revision, info);
    // Literal `files` are asked for by name; globs, and the default choice, need the whole tree.
    const literal = input.files?.every((f) => !/[*?]/.test(f)) ? input.files : null;
    const listing = await listFilesAt(access, input.repo, commit, literal, call);
    const selection = selectFiles(listing, input);
    if (selection.kind === "none") throw noMatch(input, selection.quants);
    const problem = selectionProblem(selection.files);
    if (problem) throw new AppError({ code: "unsafe_listing", message: problem });
    const version = input.version ?? defaultPullVersion(selection, commit);
    // A name taken from a file's name may hold what a version's folder must not.
    if (!mirrorVersionName.safeParse(version).success) {
      throw badRequest(`${version} is no version name of 1–64 characters: name it with version`, {
        version: "required: the files' names make no version name",
      });
    }
    return {
      access,
      call: { signal },
      repo: input.repo,
      revision,
      commit,
      gated,
      listing,
      selection,
      model,
      version,
    };
  } catch (err) {
    throw hubError(err, at);
  }
}

function noMatch(input: PullRequest, quants: readonly string[]): AppError {
  const asked = input.files
    ? `no file of ${input.repo} matches ${input.files.join(", ")}`
    : input.quant
      ? `${input.repo} has no ${input.quant} quantisation`
      : `${input.repo} has no GGUF or safetensors weights`;
  const there = quants.length > 0 ? `; it has ${quants.join(", ")}` : "";
  return new AppError({
    code: "no_matching_files",
    message: `${asked}${there}`,
    extra: { quants: [...quants] },
  });
}
