import { useEffect, useRef } from "react";
import { SignInForm } from "./SignInForm";

/**
 * A session ended while the page was open (idle too long, signed out elsewhere, token revoked).
 * A modal over the page rather than a new page: the operator's place, and an unsaved edit, stay.
 */
export function SessionExpiredDialog() {
  const dialog = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const element = dialog.current;
    if (element && !element.open) element.showModal();
    return () => element?.close();
  }, []);
  return (
    <dialog
      ref={dialog}
      className="card sign-in-card"
      aria-labelledby="session-expired-title"
      data-testid="session-expired"
      // Escape would close the dialog and leave a page whose every request is refused.
      onCancel={(event) => event.preventDefault()}
    >
      <h2 id="session-expired-title">Your session has ended</h2>
      <p className="muted">Sign in again to carry on where you were; nothing on this page is lost.</p>
      <SignInForm />
    </dialog>
  );
}
