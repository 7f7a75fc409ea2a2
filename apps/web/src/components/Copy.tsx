import { useState } from "react";

type Copied = "no" | "yes" | "failed";

/** Copies `text` to the clipboard on demand, and remembers how that went for `CopyStatus`. */
export function useCopy(text: string): { copy: () => void; copied: Copied } {
  const [copied, setCopied] = useState<Copied>("no");
  const copy = () => {
    navigator.clipboard.writeText(text).then(
      () => setCopied("yes"),
      () => setCopied("failed"),
    );
  };
  return { copy, copied };
}

/** What the last copy did, read out to a screen reader too. */
export function CopyStatus({ copied }: { copied: Copied }) {
  return (
    <span role="status">
      {copied === "yes"
        ? "Copied."
        : copied === "failed"
          ? "Could not copy: select it and copy it by hand."
          : ""}
    </span>
  );
}
