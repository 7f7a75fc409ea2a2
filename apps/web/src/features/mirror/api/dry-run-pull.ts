import { isDryRun, type PullDryRun, type PullRequest } from "@llmgw/domain";
import { useMutation } from "@tanstack/react-query";
import { answer, api } from "../../../lib/api";

/** What each quantisation of a repo would need and where it fits (SPEC §10.3); writes nothing. */
export async function dryRunPull(input: Omit<PullRequest, "dryRun">): Promise<PullDryRun> {
  const answered = await answer(api.mirror.pulls.$post({ json: { ...input, dryRun: true } }));
  if (!isDryRun(answered)) throw new Error("the server started a pull instead of a dry run");
  return answered;
}

export const useDryRunPull = () => useMutation({ mutationFn: dryRunPull });
