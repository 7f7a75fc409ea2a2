import { useEffect } from "react";
import { SignInForm } from "./SignInForm";

/** Shown instead of the dashboard when nobody is signed in; the address stays the page asked for. */
export function SignInPage() {
  useEffect(() => {
    document.title = "Sign in · llmgw";
  }, []);
  return (
    <main id="main" className="sign-in-page">
      <section className="card sign-in-card" aria-labelledby="sign-in-title">
        <h1 id="sign-in-title">Sign in to llmgw</h1>
        <p className="muted">
          This control plane asks for a token. Once signed in, this browser keeps a session until you sign out
          or leave it idle.
        </p>
        <SignInForm />
      </section>
    </main>
  );
}
