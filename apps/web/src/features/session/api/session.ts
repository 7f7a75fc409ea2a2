import type { SessionView } from "@llmgw/contract";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { ApiFailure, answer, api } from "../../../lib/api";
import { sessionState } from "../../../lib/session";

/**
 * Asks the server who this page is. A 401 has already moved the state (lib/api.ts). No answer at
 * all, on loading, says the control plane cannot be reached; as a `probe` (the event stream
 * dropped) it changes nothing: the offline banner already says so, over the page.
 */
export async function checkSession({ probe = false } = {}): Promise<void> {
  try {
    sessionState.signedIn(await answer(api.session.$get()));
  } catch (error) {
    if (!probe && (!(error instanceof ApiFailure) || error.status !== 401)) sessionState.unreachable();
  }
}

/** Sign-in: on success the page (kept on screen meanwhile) refetches what it shows. */
export function useSignIn(onSignedIn?: (session: SessionView) => void) {
  const client = useQueryClient();
  return useMutation({
    // A wrong token is a 401 here, not an expiry: it is the form's to show.
    mutationFn: (token: string) => answer(api.session.$post({ json: { token } }), { signingIn: true }),
    onSuccess: (session) => {
      sessionState.signedIn(session);
      void client.invalidateQueries();
      onSignedIn?.(session);
    },
  });
}

/** Sign-out: the cookie goes, and so does every answer cached for the signed-in role. */
export function useSignOut() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: () => answer(api.session.$delete()),
    onSettled: () => {
      client.clear();
      sessionState.signedOut();
    },
  });
}
