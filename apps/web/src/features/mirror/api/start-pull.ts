import { isDryRun, type Pull, type PullRequest } from "@llmgw/domain";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { answer, api } from "../../../lib/api";
import { pullsQueryOptions, withPull } from "./get-pulls";

export async function startPull(input: Omit<PullRequest, "dryRun">): Promise<Pull> {
  const answered = await answer(api.mirror.pulls.$post({ json: input }));
  if (isDryRun(answered)) throw new Error("the server answered a dry run");
  return answered;
}

/** The new pull shows at once; its progress comes as `mirror.pull` events. */
export function useStartPull() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: startPull,
    onSuccess: (pull) => client.setQueryData(pullsQueryOptions().queryKey, (list) => withPull(list, pull)),
  });
}
