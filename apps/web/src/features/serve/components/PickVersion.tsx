import type { MirrorEntry } from "@llmgw/domain";
import { counted } from "@llmgw/domain";
import { Empty } from "../../../components/Status";
import { Link } from "../../../lib/router";
import { percent } from "../../../lib/units";

type Props = { entries: MirrorEntry[]; selected: MirrorEntry | null; onSelect: (entry: MirrorEntry) => void };

export const entryKey = (e: { model: string; version: string }) => `${e.model}/${e.version}`;

/** Why a version cannot be picked: the plan's refusal, or that its weights are not all here yet. */
export function unavailable(entry: MirrorEntry): string | null {
  if (entry.plan.refusal) return entry.plan.refusal;
  const missing = entry.files.filter((f) => f.state !== "complete");
  if (missing.some((f) => f.state === "failed")) return "a download failed; fetch it again first";
  if (missing.length > 0) {
    const done = entry.files.reduce((s, f) => s + f.bytesDone, 0);
    const total = entry.files.reduce((s, f) => s + (f.bytesTotal ?? f.bytesDone), 0);
    return `still downloading (${percent(done, total)}%)`;
  }
  return null;
}

/** Still arriving, rather than refused: worth waiting for. */
function downloading(entry: MirrorEntry): boolean {
  return entry.plan.refusal === null && entry.files.every((f) => f.state !== "failed");
}

/** The versions that can be picked first; the rest after, each group in the server's order. */
const pickableFirst = (entries: MirrorEntry[]) =>
  entries.toSorted((a, b) => Number(unavailable(a) !== null) - Number(unavailable(b) !== null));

export function PickVersion({ entries, selected, onSelect }: Props) {
  if (entries.length === 0)
    return (
      <Empty>
        The mirror has no versions yet: the <Link to="/mirror">Mirror</Link> page says where to put them.
      </Empty>
    );
  return (
    <fieldset className="plain">
      <legend className="step-title">Which mirrored version?</legend>
      <ul className="choices">
        {pickableFirst(entries).map((entry) => {
          const key = entryKey(entry);
          const why = unavailable(entry);
          const id = `serve-version-${key}`;
          return (
            <li
              key={key}
              className={why ? "choice choice-disabled" : "choice"}
              data-testid={`serve-version-${entry.model}-${entry.version}`}
            >
              <input
                type="radio"
                name="serve-version"
                id={id}
                value={key}
                checked={selected !== null && entryKey(selected) === key}
                disabled={why !== null}
                aria-describedby={why ? `${id}-why` : undefined}
                onChange={() => onSelect(entry)}
              />
              <label htmlFor={id}>
                <strong>{entry.model}</strong> {entry.version}{" "}
                <span className="muted nowrap">
                  {entry.plan.engine || "no engine"} · {counted(entry.files.length, "file")}
                </span>
              </label>
              {why && (
                <p
                  className={downloading(entry) ? "choice-why choice-wait" : "choice-why"}
                  id={`${id}-why`}
                  data-testid="serve-refusal"
                >
                  {why}
                </p>
              )}
            </li>
          );
        })}
      </ul>
    </fieldset>
  );
}
