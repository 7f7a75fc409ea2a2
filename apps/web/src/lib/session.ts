import type { Route, SessionView } from "@llmgw/contract";
import { mayCall } from "@llmgw/contract";
import { useSyncExternalStore } from "react";

/**
 * Who is signed in, for the whole page. `checking` until GET /session answers; `signed-out` shows
 * the sign-in page; `expired` keeps the page on screen under a sign-in dialog, so the operator's
 * place (and an edit in progress) survives a session that ended. Any 401 from the API lands here
 * (lib/api.ts), so no feature handles sign-in on its own.
 */
export type SessionState =
  | { status: "checking" }
  | { status: "unreachable" }
  | { status: "signed-out" }
  | { status: "signed-in"; session: SessionView }
  | { status: "expired"; session: SessionView };

let state: SessionState = { status: "checking" };
const listeners = new Set<() => void>();

function set(next: SessionState): void {
  state = next;
  for (const listener of listeners) listener();
}

export const sessionState = {
  get: (): SessionState => state,
  subscribe(listener: () => void): () => void {
    listeners.add(listener);
    return () => listeners.delete(listener);
  },
  signedIn: (session: SessionView) => set({ status: "signed-in", session }),
  signedOut: () => set({ status: "signed-out" }),
  unreachable: () => set({ status: "unreachable" }),
  checking: () => set({ status: "checking" }),
  /** The API answered 401: a session that was live has ended; before that, nobody had signed in. */
  refused(): void {
    if (state.status === "signed-in") set({ status: "expired", session: state.session });
    else if (state.status === "checking") set({ status: "signed-out" });
  },
};

export function useSession(): SessionState {
  return useSyncExternalStore(sessionState.subscribe, sessionState.get);
}

/**
 * Whether the signed-in role may call a route of the contract (`contract.models.patch`), by the
 * rule the server enforces: controls it would refuse are not offered.
 */
export function useMayCall(route: Pick<Route, "need">): boolean {
  const current = useSession();
  return "session" in current && mayCall(current.session.role, route);
}

/** "Signed in as ops-viewer, a viewer": why a control is missing. */
export function useWhoAmI(): string | null {
  const current = useSession();
  if (!("session" in current) || !current.session.tokensRequired) return null;
  const { name, role } = current.session;
  return `Signed in as ${name}, ${role === "operator" || role === "admin" || role === "agent" ? "an" : "a"} ${role}`;
}
