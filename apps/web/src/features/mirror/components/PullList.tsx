import { contract } from "@llmgw/contract";
import type { Pull } from "@llmgw/domain";
import { counted, formatSpeed, formatTimeLeft, pullEnded } from "@llmgw/domain";
import { ActionError } from "../../../components/ActionError";
import { useMayCall } from "../../../lib/session";
import { bytesOf, dateTime } from "../../../lib/units";
import { useCancelPull } from "../api/cancel-pull";
import { pullRateOf } from "../pull-rate";

/** The pulls shown: every unfinished one, and the latest few that ended. */
const ENDED_SHOWN = 5;

/** A pull's state drawn as the mirror's file states are. */
const STATE_LOOK: Record<Pull["state"], "downloading" | "complete" | "failed"> = {
  queued: "downloading",
  downloading: "downloading",
  complete: "complete",
  failed: "failed",
  cancelled: "failed",
};

/** Pulls from the Hub, live: progress, speed and time left, Cancel; then how they ended. */
export function PullList({ pulls }: { pulls: Pull[] }) {
  const running = pulls.filter((p) => !pullEnded(p.state));
  const ended = pulls.filter((p) => pullEnded(p.state)).slice(0, ENDED_SHOWN);
  if (running.length + ended.length === 0) return null;
  return (
    <section aria-labelledby="pulls-title" data-testid="pull-list">
      <h2 id="pulls-title" className="section-title">
        Pulls from Hugging Face
      </h2>
      <div className="card-list">
        {[...running, ...ended].map((p) => (
          <PullCard key={p.id} pull={p} />
        ))}
      </div>
    </section>
  );
}

function PullCard({ pull }: { pull: Pull }) {
  const titleId = `pull-title-${pull.id}`;
  const mayCancel = useMayCall(contract.pulls.cancel);
  const cancel = useCancelPull();
  const unfinished = !pullEnded(pull.state);
  return (
    <article className="card" aria-labelledby={titleId} data-testid={`pull-${pull.id}`}>
      <header className="card-header">
        <h3 id={titleId} className="card-title">
          {pull.model} <span className="muted">/ {pull.version}</span>
        </h3>
        <span className={`state state-${STATE_LOOK[pull.state]}`} data-testid="pull-state">
          {pull.state}
        </span>
      </header>
      <p className="meta">
        {pull.repo} at {pull.commit.slice(0, 12)} · {counted(pull.files.length, "file")} · asked{" "}
        {dateTime(pull.at)} by {pull.by}
      </p>
      {unfinished && <Progress pull={pull} />}
      {pull.error && pull.state !== "cancelled" && (
        <p className="notice notice-error" data-testid="pull-error">
          {pull.error}
        </p>
      )}
      {unfinished && mayCancel && (
        <div className="actions">
          <button
            type="button"
            disabled={cancel.isPending}
            onClick={() => cancel.mutate(pull.id)}
            data-testid="pull-cancel"
          >
            {cancel.isPending ? "Cancelling…" : "Cancel"}
          </button>
          <ActionError error={cancel.isError ? cancel.error : null} />
        </div>
      )}
    </article>
  );
}

/** The bar, bytes, and speed and time left from the progress this page has seen. */
function Progress({ pull }: { pull: Pull }) {
  const { speed, secondsLeft: left } = pullRateOf(pull);
  const figures = [
    bytesOf(pull.bytesDone, pull.bytesTotal),
    speed === null ? null : formatSpeed(speed),
    left === null ? null : `${formatTimeLeft(left)} left`,
    pull.state === "queued" ? "queued: two pulls download at a time" : null,
  ].filter((f) => f !== null);
  return (
    <div className="file">
      <progress
        aria-label={`${pull.model} ${pull.version}: ${pull.state}`}
        max={Math.max(1, pull.bytesTotal)}
        value={pull.bytesDone}
        data-testid="pull-progress"
      />
      <p className="muted" data-testid="pull-figures">
        {figures.join(" · ")}
      </p>
    </div>
  );
}
