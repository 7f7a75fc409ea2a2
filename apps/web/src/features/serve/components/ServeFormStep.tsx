import type { Class, QuotaUsage } from "@llmgw/domain";
import type { ReactNode } from "react";
import type { FieldErrors, UseFormReturn } from "react-hook-form";
import { Field } from "../../../components/Field";
import { quotaLine, type WizardField, type WizardInput, type WizardOutput } from "../wizard-form";

export type WizardForm = UseFormReturn<WizardInput, unknown, WizardOutput>;

/** The first message under a field, however deep the schema put it. */
export function errorAt(errors: FieldErrors<WizardInput>, path: WizardField): string | undefined {
  let node: unknown = errors;
  for (const key of path.split(".")) {
    if (typeof node !== "object" || node === null) return undefined;
    const next = (node as Record<string, unknown>)[key];
    // A message about the whole node selector belongs to its first box.
    if (next === undefined) return key === "key" ? ownMessage(node) : undefined;
    node = next;
  }
  return messageIn(node, 0);
}

function ownMessage(node: object): string | undefined {
  const message = (node as { message?: unknown }).message;
  return typeof message === "string" && message !== "" ? message : undefined;
}

function messageIn(node: unknown, depth: number): string | undefined {
  if (depth > 3 || typeof node !== "object" || node === null) return undefined;
  const own = ownMessage(node);
  if (own) return own;
  for (const [key, value] of Object.entries(node)) {
    if (key === "ref") continue;
    const found = messageIn(value, depth + 1);
    if (found) return found;
  }
  return undefined;
}

/** An alias's problem names the alias: the schema reports it by position in the list. */
function aliasError(errors: FieldErrors<WizardInput>, typed: string): string | undefined {
  const node: unknown = errors.aliases;
  if (Array.isArray(node)) {
    const aliases = typed
      .split(",")
      .map((a) => a.trim())
      .filter((a) => a !== "");
    const index = node.findIndex((e) => e !== undefined && e !== null);
    const message = messageIn(node[index], 0);
    if (message) return `"${aliases[index] ?? ""}": ${message}`;
  }
  return errorAt(errors, "aliases");
}

const asNumber = (v: unknown) => (v === "" || v === null || v === undefined ? undefined : Number(v));
const asNumberOrNull = (v: unknown) => (v === "" || v === null || v === undefined ? null : Number(v));

/** The classes to offer, highest rank first, with the form's own even before the list arrives. */
function classNames(classes: readonly Class[], current: string): string[] {
  const names = classes.toSorted((a, b) => b.rank - a.rank).map((c) => c.name);
  return current === "" || names.includes(current) ? names : [current, ...names];
}

type Props = { form: WizardForm; memoryBasis: ReactNode; classes: Class[]; quotas: QuotaUsage[] };

export function ServeFormStep({ form, memoryBasis, classes, quotas }: Props) {
  const { register, formState, watch } = form;
  const errors = formState.errors;
  const mode = watch("mode");

  const text = (name: WizardField, label: string, hint?: ReactNode, error = errorAt(errors, name)) => (
    <Field label={label} error={error} hint={hint} testId={`field-${name}`}>
      {(control) => <input {...control} {...register(name)} autoComplete="off" />}
    </Field>
  );
  const number = (name: WizardField, label: string, hint?: ReactNode, nullable = false) => (
    <Field label={label} error={errorAt(errors, name)} hint={hint} testId={`field-${name}`}>
      {(control) => (
        <input
          {...control}
          type="number"
          inputMode="numeric"
          min={0}
          step={1}
          {...register(name, { setValueAs: nullable ? asNumberOrNull : asNumber })}
        />
      )}
    </Field>
  );

  return (
    <>
      <h3 className="step-title">How should it run?</h3>
      <fieldset className="group">
        <legend>Name</legend>
        <div className="field-grid wide">
          {text("name", "Name", "letters, digits and . _ : -, up to 64")}
          {text("aliases", "Aliases", "comma separated", aliasError(errors, String(watch("aliases") ?? "")))}
          <Field
            label="Description"
            error={errorAt(errors, "description")}
            testId="field-description"
            className="span-2"
          >
            {(control) => <textarea {...control} rows={2} {...register("description")} />}
          </Field>
        </div>
      </fieldset>
      <fieldset className="group">
        <legend>Class and owner</legend>
        <div className="field-grid wide">
          <Field
            label="Class"
            error={errorAt(errors, "class")}
            hint={classes.find((c) => c.name === watch("class"))?.description || "what its capacity is worth"}
            testId="field-class"
          >
            {(control) => (
              <select {...control} {...register("class")}>
                {classNames(classes, String(watch("class") ?? "")).map((c) => (
                  <option key={c} value={c}>
                    {c}
                  </option>
                ))}
              </select>
            )}
          </Field>
          <Field
            label="Owner"
            error={errorAt(errors, "owner")}
            hint={
              <span data-testid="serve-owner-quota">{quotaLine(String(watch("owner") ?? ""), quotas)}</span>
            }
            testId="field-owner"
          >
            {(control) => (
              <input
                {...control}
                {...register("owner")}
                list="serve-owners"
                placeholder="unowned"
                autoComplete="off"
              />
            )}
          </Field>
          <datalist id="serve-owners">
            {quotas.map((q) => (
              <option key={q.owner} value={q.owner} />
            ))}
          </datalist>
        </div>
      </fieldset>
      <fieldset className="group">
        <legend>Context</legend>
        <div className="field-grid wide">
          {number("contextLength", "Context length", "tokens one request may use")}
          {number("maxOutput", "Output limit", "tokens; blank for none", true)}
          {number("ctxPool", "Context pool", "tokens the engine holds for all requests together")}
        </div>
      </fieldset>
      <fieldset className="group">
        <legend>Replicas and resources</legend>
        <div className="field-grid wide">
          <Field label="Mode" error={errorAt(errors, "mode")} testId="field-mode">
            {(control) => (
              <select {...control} {...register("mode")}>
                <option value="always">Always on</option>
                <option value="ondemand">On demand</option>
                <option value="stopped">Stopped</option>
              </select>
            )}
          </Field>
          {number("replicas", "Replicas", mode === "ondemand" ? "at most, while in use" : undefined)}
          {mode === "always" &&
            number("maxReplicas", "Max replicas", "traffic adds replicas up to this; blank: no more", true)}
          {number("minMemoryGB", "Memory (GB)", "per replica")}
          {number(
            "cpuCores",
            "Cores",
            // Rule 6 of the serve plan proposes none when no ready node reports its cores: say why.
            watch("cpuCores") === 0 ? (
              <span className="hint-warn" data-testid="serve-no-cores">
                no ready node reports its cores, so none is proposed: start an agent (Fleet) or enter what
                each replica needs
              </span>
            ) : (
              "per replica"
            ),
          )}
        </div>
        <p className="field-hint" data-testid="serve-memory-basis">
          Memory estimate: {memoryBasis}
        </p>
      </fieldset>
      <fieldset className="group">
        <legend>Placement</legend>
        <div className="field-grid wide">
          {text("nodeSelector.key", "Node label", "only nodes with this label; blank for any")}
          {text("nodeSelector.value", "Label value")}
        </div>
      </fieldset>
    </>
  );
}
