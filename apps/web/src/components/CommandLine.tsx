import { useState } from "react";

/** A command to run elsewhere, whole and selectable, with a button that copies it. */
export function CommandLine({ line, label, testId }: { line: string; label: string; testId: string }) {
  const [copied, setCopied] = useState<"no" | "yes" | "failed">("no");
  const copy = () => {
    navigator.clipboard.writeText(line).then(
      () => setCopied("yes"),
      () => setCopied("failed"),
    );
  };
  return (
    <div className="command-line">
      <pre className="mono wrap" data-testid={testId}>
        {line}
      </pre>
      <div className="actions">
        <button type="button" onClick={copy} aria-label={`Copy ${label}`}>
          Copy
        </button>
        <span role="status">
          {copied === "yes"
            ? "Copied."
            : copied === "failed"
              ? "Could not copy: select it and copy it by hand."
              : ""}
        </span>
      </div>
    </div>
  );
}
