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
