import type { CreatedToken } from "@llmgw/contract";
import { CopyStatus, useCopy } from "../../../components/Copy";

/** The secret of a token just made: shown this once, with a way to copy it. */
export function NewTokenSecret({ created, onDone }: { created: CreatedToken; onDone: () => void }) {
  const { copy, copied } = useCopy(created.token);
  return (
    <section className="card notice-warn" aria-labelledby="new-token-title" data-testid="token-secret">
      <h2 id="new-token-title" className="section-title" tabIndex={-1}>
        {created.name} is ready
      </h2>
      <p>
        Copy the token now and store it where its user will find it: llmgw keeps only its hash, so it is not
        shown again and cannot be recovered.
      </p>
      <p>
        <code className="mono" data-testid="token-secret-value">
          {created.token}
        </code>
      </p>
      <div className="actions">
        <button type="button" className="primary" onClick={copy} data-testid="token-copy">
          Copy token
        </button>
        <CopyStatus copied={copied} />
        <button type="button" onClick={onDone} data-testid="token-secret-done">
          I have stored it
        </button>
      </div>
    </section>
  );
}
