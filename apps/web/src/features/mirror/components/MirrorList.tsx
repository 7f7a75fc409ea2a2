import type { MirrorEntry, MirrorFile, MirrorInfo } from "@llmgw/domain";
import { counted } from "@llmgw/domain";
import { Empty } from "../../../components/Status";
import { Link } from "../../../lib/router";
import { bytes, gb, percent } from "../../../lib/units";
import { RollOutVersion } from "../../serve/components/RollOutVersion";
import { servableFirst } from "../order";

export function MirrorList({ entries, info }: { entries: MirrorEntry[]; info: MirrorInfo | null }) {
  return (
    <>
      {info && info.misplaced.length > 0 && <Misplaced info={info} />}
      {entries.length === 0 ? (
        <Empty>
          <span data-testid="mirror-empty">
            The mirror is empty. Weights appear here as they are downloaded
            {info ? (
              <>
                {" "}
                to <code className="wrap">{`${info.dir}/${info.layout}`}</code>
              </>
            ) : null}
            .
          </span>
        </Empty>
      ) : (
        <div className="card-list" data-testid="mirror-list">
          {servableFirst(entries).map((entry) => (
            <MirrorVersion key={`${entry.model}/${entry.version}`} entry={entry} />
          ))}
        </div>
      )}
    </>
  );
}

/** Weights files the mirror passes over, outside `<model>/<version>/<file>`, each with its fix. */
function Misplaced({ info }: { info: MirrorInfo }) {
  return (
    <section className="notice notice-warn" aria-labelledby="misplaced-title" data-testid="mirror-misplaced">
      <h2 id="misplaced-title" className="section-title">
        {counted(info.misplaced.length, "file")} not in the mirror's layout ({info.layout}), so not listed
      </h2>
      <ul className="plain-list">
        {info.misplaced.map((m) => (
          <li key={m.path} data-testid={`misplaced-${m.path}`}>
            <code className="wrap">{m.fix}</code>
          </li>
        ))}
      </ul>
    </section>
  );
}

function MirrorVersion({ entry }: { entry: MirrorEntry }) {
  const { plan } = entry;
  const titleId = `mirror-title-${entry.model}-${entry.version}`;
  const complete = entry.files.every((f) => f.state === "complete");
  const serve = `/serve?model=${encodeURIComponent(entry.model)}&version=${encodeURIComponent(entry.version)}`;
  return (
    <article
      className="card"
      aria-labelledby={titleId}
      data-testid={`mirror-version-${entry.model}-${entry.version}`}
    >
      <header className="card-header">
        <h2 id={titleId} className="card-title">
          {entry.model} <span className="muted">/ {entry.version}</span>
        </h2>
        <span className="badge">{plan.engine || "unknown engine"}</span>
        {entry.gguf?.architecture && <span className="badge">{entry.gguf.architecture}</span>}
      </header>
      <ul className="files">
        {entry.files.map((file) => (
          <FileProgress key={file.file} file={file} />
        ))}
      </ul>
      {plan.refusal ? (
        <p className="notice notice-error" data-testid="mirror-refusal">
          Cannot be served: {plan.refusal}
        </p>
      ) : (
        <p className="meta">
          needs about {gb(plan.minMemoryGB)} and {counted(plan.cpuCores, "core")} per replica
          {plan.already && " · already in the catalogue"}
        </p>
      )}
      {plan.warning && (
        <p className="notice notice-warn" data-testid="mirror-warning">
          {plan.warning}
        </p>
      )}
      {!plan.refusal && complete && (
        <div className="actions">
          <Link to={serve} className="button" data-testid="mirror-serve">
            Serve {entry.model} {entry.version}…
          </Link>
        </div>
      )}
      {!plan.refusal && complete && <RollOutVersion plan={plan} />}
    </article>
  );
}

function FileProgress({ file }: { file: MirrorFile }) {
  const total = file.bytesTotal;
  const done = file.state === "complete" ? (total ?? file.bytesDone) : file.bytesDone;
  const label = `${file.file}: ${file.state}`;
  return (
    <li className="file" data-testid={`mirror-file-${file.file}`}>
      <div className="file-line">
        <span className="mono file-name">{file.file}</span>
        <span className={`state state-${file.state}`}>{file.state}</span>
        <span className="muted" data-testid="file-bytes">
          {total === null ? bytes(done) : `${bytes(done)} of ${bytes(total)}`}
          {total !== null && file.state === "downloading" && ` (${percent(done, total)}%)`}
        </span>
      </div>
      {file.state === "downloading" &&
        (total === null ? (
          <progress aria-label={label} />
        ) : (
          <progress aria-label={label} max={total} value={done} />
        ))}
      {file.error && <p className="field-error">{file.error}</p>}
    </li>
  );
}
