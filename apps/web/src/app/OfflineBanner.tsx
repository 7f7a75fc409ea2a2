import { useLiveStatus } from "../lib/live";

/** Said plainly when the live stream is down: what is on screen may be out of date. */
export function OfflineBanner() {
  const status = useLiveStatus();
  return (
    <div role="status" aria-live="polite" className="banner-slot">
      {status === "offline" && (
        <p className="banner-offline" data-testid="offline-banner">
          <strong>Offline.</strong> Live updates are paused while the control plane cannot be reached; what
          you see may be out of date. Reconnecting…
        </p>
      )}
    </div>
  );
}
