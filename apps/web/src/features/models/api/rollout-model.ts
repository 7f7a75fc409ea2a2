import type { RolloutAction } from "@llmgw/domain";
import { useMutation } from "@tanstack/react-query";
import { answer, api, segment } from "../../../lib/api";

/** Promote a held canary, or abort the running rollout (SPEC §11.3). */
export const rolloutModel = ({ name, action }: { name: string; action: RolloutAction["action"] }) =>
  answer(api.models[":name"].rollout.$post({ param: { name: segment(name) }, json: { action } }));

/** The model that follows reaches the card on the event stream, like any other change. */
export const useRolloutModel = () => useMutation({ mutationFn: rolloutModel });
