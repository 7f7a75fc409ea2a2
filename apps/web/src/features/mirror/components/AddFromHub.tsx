import type { PullDryRun } from "@llmgw/domain";
import { counted, pullRequestSchema, pullSpecOf, SAFETENSORS_CHOICE } from "@llmgw/domain";
import { type FormEvent, useState } from "react";
import { FormError } from "../../../components/ActionError";
import { Field } from "../../../components/Field";
import { HeadRow } from "../../../components/HeadRow";
import { TableScroll } from "../../../components/TableScroll";
import { bytes, gb } from "../../../lib/units";
import { useDryRunPull } from "../api/dry-run-pull";
import { useStartPull } from "../api/start-pull";

type Asked = { repo: string; quant?: string; revision?: string };

/**
 * "Add from Hugging Face" (SPEC §10.6): a repo box, the dry run as a table — each quantisation's
 * size, the memory a replica would ask for and on how many ready nodes one fits now, the best
 * fit marked — and Pull. The request is checked by the API's own schema before it is sent.
 */
export function AddFromHub() {
  const [open, setOpen] = useState(false);
  if (!open) {
    return (
      <div className="actions page-actions">
        <button type="button" onClick={() => setOpen(true)} data-testid="hub-add">
          Add from Hugging Face…
        </button>
      </div>
    );
  }
  return <HubForm onClose={() => setOpen(false)} />;
}

function HubForm({ onClose }: { onClose: () => void }) {
  const [spec, setSpec] = useState("");
  const [revision, setRevision] = useState("");
  const [problem, setProblem] = useState<{ field: "spec" | "revision"; message: string } | null>(null);
  const [asked, setAsked] = useState<Asked | null>(null);
  const [chosen, setChosen] = useState<string | null>(null);
  const dryRun = useDryRunPull();
  const start = useStartPull();

  const check = (event: FormEvent) => {
    event.preventDefault();
    const request = { ...pullSpecOf(spec), ...(revision.trim() ? { revision: revision.trim() } : {}) };
    const parsed = pullRequestSchema.safeParse(request);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const field = issue?.path[0] === "revision" ? "revision" : "spec";
      const what = { repo: "the repo", quant: "the quantisation" }[String(issue?.path[0])] ?? "it";
      setProblem({
        field,
        message: `${field === "spec" ? `${what}: ` : ""}${issue?.message ?? "not valid"}`,
      });
      return;
    }
    setProblem(null);
    setAsked(request);
    start.reset();
    dryRun.mutate(request, {
      onSuccess: (dry) => setChosen(request.quant !== undefined ? dry.picked : (dry.best ?? dry.picked)),
    });
  };

  const pull = () => {
    if (!asked || chosen === null) return;
    const { quant: _typed, ...rest } = asked;
    start.mutate(chosen === SAFETENSORS_CHOICE ? rest : { ...rest, quant: chosen }, { onSuccess: onClose });
  };

  const dry = dryRun.data && !dryRun.isPending ? dryRun.data : null;
  const failure = dryRun.isError ? dryRun.error : start.isError ? start.error : null;
  return (
    <section className="card" aria-labelledby="hub-title" data-testid="hub-form">
      <h2 id="hub-title" className="section-title">
        Add from Hugging Face
      </h2>
      <form onSubmit={check} aria-label="Check a Hugging Face repo" noValidate>
        <div className="field-grid wide">
          <Field
            label="Repo"
            className="span-2"
            error={problem?.field === "spec" ? problem.message : undefined}
            hint="owner/name, or owner/name:Q4_K_M for one quantisation"
            testId="field-hub-repo"
          >
            {(control) => (
              <input
                {...control}
                value={spec}
                onChange={(e) => setSpec(e.target.value)}
                placeholder="bartowski/Qwen2.5-7B-Instruct-GGUF"
                autoComplete="off"
                spellCheck={false}
                data-testid="hub-repo"
              />
            )}
          </Field>
          <Field
            label="Revision"
            error={problem?.field === "revision" ? problem.message : undefined}
            hint="a branch, tag or commit; blank: main"
            testId="field-hub-revision"
          >
            {(control) => (
              <input
                {...control}
                value={revision}
                onChange={(e) => setRevision(e.target.value)}
                placeholder="main"
                autoComplete="off"
                spellCheck={false}
              />
            )}
          </Field>
        </div>
        <div className="actions">
          <button type="submit" disabled={dryRun.isPending} data-testid="hub-check">
            {dryRun.isPending ? "Checking…" : "Check what fits"}
          </button>
          <button type="button" onClick={onClose}>
            Close
          </button>
        </div>
      </form>
      <FormError error={failure} testId="hub-error" />
      {dry && (
        <Choices dry={dry} chosen={chosen} onChoose={setChosen} onPull={pull} pulling={start.isPending} />
      )}
    </section>
  );
}

function Choices(props: {
  dry: PullDryRun;
  chosen: string | null;
  onChoose: (quant: string) => void;
  onPull: () => void;
  pulling: boolean;
}) {
  const { dry, chosen } = props;
  return (
    <>
      <p className="meta" data-testid="hub-commit">
        {dry.repo} at {dry.commit.slice(0, 12)}:{" "}
        {dry.best === null
          ? "no quantisation fits on a ready node now"
          : `${dry.best} is the largest that fits on a ready node now`}
      </p>
      <TableScroll label="Quantisations">
        <table data-testid="hub-choices">
          <HeadRow columns={["Quantisation", "Files", "Size", "Memory", "Fits on", "Note"]} />
          <tbody>
            {dry.choices.map((c) => (
              <tr key={c.quant} data-testid={`hub-choice-${c.quant}`} aria-selected={c.quant === chosen}>
                <th scope="row">
                  <label>
                    <input
                      type="radio"
                      name="hub-quant"
                      value={c.quant}
                      checked={c.quant === chosen}
                      onChange={() => props.onChoose(c.quant)}
                    />{" "}
                    {c.quant}
                  </label>
                </th>
                <td>{c.files.length}</td>
                <td>{bytes(c.bytes)}</td>
                <td>{gb(c.estimateGB)}</td>
                <td data-testid="hub-fits">{counted(c.fits, "node")}</td>
                <td>
                  {c.quant === dry.best && (
                    <span className="badge" data-testid="hub-best">
                      fits best
                    </span>
                  )}
                  {c.refusal && <span className="field-error">{c.refusal}</span>}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableScroll>
      <div className="actions">
        <button
          type="button"
          className="primary"
          disabled={chosen === null || props.pulling}
          onClick={props.onPull}
          data-testid="hub-pull"
        >
          {props.pulling ? "Starting…" : `Pull ${chosen ?? ""}`}
        </button>
      </div>
    </>
  );
}
