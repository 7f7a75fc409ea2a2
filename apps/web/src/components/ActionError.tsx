import { messageOf } from "./Status";

/** The server's refusal of a button's action, beside the button and announced. */
export function ActionError({ error }: { error: unknown }) {
  if (error == null) return null;
  return (
    <span className="field-error" role="alert">
      {messageOf(error)}
    </span>
  );
}

/** The server's refusal of a form's request, under the form and announced. */
export function FormError({ error, testId }: { error: unknown; testId: string }) {
  if (error == null) return null;
  return (
    <p className="notice notice-error" role="alert" data-testid={testId}>
      {messageOf(error)}
    </p>
  );
}
