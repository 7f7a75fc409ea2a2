import { CopyStatus, useCopy } from "./Copy";

/** A command to run elsewhere, whole and selectable, with a button that copies it. */
export function CommandLine({ line, label, testId }: { line: string; label: string; testId: string }) {
  const { copy, copied } = useCopy(line);
  return (
    <div className="command-line">
      <pre className="mono wrap" data-testid={testId}>
        {line}
      </pre>
      <div className="actions">
        <button type="button" onClick={copy} aria-label={`Copy ${label}`}>
          Copy
        </button>
        <CopyStatus copied={copied} />
      </div>
    </div>
  );
}
