import type { ReactNode } from "react";
import { ApiFailure } from "../lib/api";

/** What a section shows while its data is on the way, when it failed, or when there is none. */

export function Loading({ what }: { what: string }) {
  return (
    <p className="muted" role="status">
      Loading {what}…
    </p>
  );
}

export function messageOf(error: unknown): string {
  if (error instanceof ApiFailure) return error.message;
  if (error instanceof Error) return error.message;
  return String(error);
}

export function LoadError({ what, error, retry }: { what: string; error: unknown; retry?: () => void }) {
  return (
    <div className="notice notice-error" role="alert">
      <p>
        Could not load {what}: {messageOf(error)}
      </p>
      {retry && (
        <button type="button" onClick={retry}>
          Try again
        </button>
      )}
    </div>
  );
}

export function Empty({ children }: { children: ReactNode }) {
  return <p className="empty">{children}</p>;
}
