import type { SessionView } from "@llmgw/contract";
import { type FormEvent, useState } from "react";
import { Field } from "../../../components/Field";
import { ApiFailure } from "../../../lib/api";
import { useSignIn } from "../api/session";

/** What went wrong, in the operator's words. */
function problemOf(error: unknown): string {
  if (!(error instanceof ApiFailure)) return "Could not sign in.";
  if (error.status === 401) return "That token is not valid: it may be mistyped, or revoked.";
  if (error.status === 403 || error.status === 429) return error.message;
  if (error.status === 0) return "The control plane did not answer; is it running?";
  return error.message;
}

/** The token field and its submit; the token is sent once and never kept in the page. */
export function SignInForm({ onSignedIn }: { onSignedIn?: (session: SessionView) => void }) {
  const [token, setToken] = useState("");
  const signIn = useSignIn(onSignedIn);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const trimmed = token.trim();
    if (trimmed === "") return;
    signIn.mutate(trimmed, { onSuccess: () => setToken("") });
  };
  return (
    <form onSubmit={submit} aria-label="Sign in" className="sign-in-form" data-testid="sign-in-form">
      <Field
        label="Access token"
        hint={
          <>
            An llmgw token (<code>llmgw_…</code>) from your admin, or from{" "}
            <code className="nowrap">llmgw ctl token create</code>.
          </>
        }
        error={signIn.isError ? problemOf(signIn.error) : undefined}
        testId="field-token"
      >
        {(control) => (
          <input
            {...control}
            name="token"
            type="password"
            autoComplete="current-password"
            spellCheck={false}
            required
            value={token}
            onChange={(e) => setToken(e.target.value)}
          />
        )}
      </Field>
      <div className="actions">
        <button type="submit" className="primary" disabled={signIn.isPending} data-testid="sign-in-submit">
          {signIn.isPending ? "Signing in…" : "Sign in"}
        </button>
      </div>
    </form>
  );
}
