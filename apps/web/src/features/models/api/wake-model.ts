import { useMutation } from "@tanstack/react-query";
import { answer, api, segment } from "../../../lib/api";

/** An on-demand model wanted as a request would want it: one replica until idle (SPEC §2.6). */
export const wakeModel = (name: string) =>
  answer(api.models[":name"].wake.$post({ param: { name: segment(name) } }));

/** The replica that follows reaches the card on the event stream, like any other. */
export const useWakeModel = () => useMutation({ mutationFn: wakeModel });
