import { useSession } from "../../../lib/session";
import { useSignOut } from "../api/session";

/** Who is signed in, and the way out. Nothing on a server without tokens: there is no one to be. */
export function SessionMenu() {
  const current = useSession();
  const signOut = useSignOut();
  if (!("session" in current) || !current.session.tokensRequired) return null;
  const { name, role } = current.session;
  return (
    <div className="session-menu" data-testid="session-menu">
      <span className="muted">
        <span data-testid="session-name">{name}</span> · <span data-testid="session-role">{role}</span>
      </span>
      <button
        type="button"
        onClick={() => signOut.mutate()}
        disabled={signOut.isPending}
        data-testid="sign-out"
      >
        Sign out
      </button>
    </div>
  );
}
