import { type FormEvent, useEffect, useState } from "react";

type Props = { model: string | null; models: string[]; onChange: (model: string | null) => void };

/** Narrows the log to one model; names from the catalogue are offered as the operator types. */
export function AuditFilter({ model, models, onChange }: Props) {
  const [text, setText] = useState(model ?? "");
  useEffect(() => setText(model ?? ""), [model]);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    onChange(text.trim() || null);
  };
  return (
    <search aria-label="Filter the audit log">
      <form className="filters" onSubmit={submit}>
        <div className="field">
          <label htmlFor="audit-model">Model</label>
          <input
            id="audit-model"
            list="audit-model-names"
            value={text}
            placeholder="every model"
            autoComplete="off"
            onChange={(e) => setText(e.target.value)}
          />
          <datalist id="audit-model-names">
            {models.map((name) => (
              <option key={name} value={name} />
            ))}
          </datalist>
        </div>
        <div className="actions">
          <button type="submit" className="primary">
            Filter
          </button>
          {model && (
            <button type="button" onClick={() => onChange(null)}>
              Show all
            </button>
          )}
        </div>
      </form>
    </search>
  );
}
