import type { Class, Mode } from "@llmgw/domain";
import type { ReactNode } from "react";
import { Field } from "../../../components/Field";
import { type CardErrors, type CardValues, FIELD_LABELS } from "../card-fields";

type Props = {
  values: CardValues;
  errors: CardErrors;
  classes: Class[];
  onChange: (values: CardValues) => void;
  /** Shown beside the memory field: what the replicas really use. */
  memoryHint?: ReactNode;
};

const MODES: { value: Mode; label: string }[] = [
  { value: "always", label: "Always on" },
  { value: "ondemand", label: "On demand" },
  { value: "stopped", label: "Stopped" },
];

export function ModelFields({ values, errors, classes, onChange, memoryHint }: Props) {
  const set = (patch: Partial<CardValues>) => onChange({ ...values, ...patch });
  const classNames = classes.map((c) => c.name);
  // A class the server knows but the list does not (yet): still shown, so the select never lies.
  if (!classNames.includes(values.class)) classNames.unshift(values.class);

  const number = (
    field: "memoryGB" | "cpuCores" | "gpus" | "replicas" | "maxReplicas" | "targetInFlight",
    disabled = false,
    hint?: ReactNode,
    placeholder?: string,
  ) => (
    <Field label={FIELD_LABELS[field]} error={errors[field]} hint={hint} testId={`field-${field}`}>
      {(control) => (
        <input
          {...control}
          name={field}
          type="number"
          inputMode="numeric"
          min={0}
          step={1}
          value={values[field]}
          placeholder={placeholder}
          disabled={disabled}
          onChange={(e) => {
            const typed = e.target.value;
            // A max that was the replicas (no autoscaling) follows them rather than falling behind.
            const follows = field === "replicas" && values.maxReplicas === values.replicas;
            set(follows ? { replicas: typed, maxReplicas: typed } : { [field]: typed });
          }}
        />
      )}
    </Field>
  );

  return (
    <div className="field-grid">
      <Field label={FIELD_LABELS.class} error={errors.class} testId="field-class">
        {(control) => (
          <select
            {...control}
            name="class"
            value={values.class}
            onChange={(e) => set({ class: e.target.value })}
          >
            {classNames.map((name) => (
              <option key={name} value={name}>
                {name}
              </option>
            ))}
          </select>
        )}
      </Field>
      <Field label={FIELD_LABELS.owner} error={errors.owner} testId="field-owner">
        {(control) => (
          <input
            {...control}
            name="owner"
            value={values.owner}
            placeholder="unowned"
            autoComplete="off"
            onChange={(e) => set({ owner: e.target.value })}
          />
        )}
      </Field>
      {number("memoryGB", false, memoryHint)}
      {number("cpuCores")}
      {number("gpus")}
      <Field label={FIELD_LABELS.mode} error={errors.mode} testId="field-mode">
        {(control) => (
          <select
            {...control}
            name="mode"
            value={values.mode}
            onChange={(e) => {
              const mode = e.target.value as Mode;
              // Starting a stopped model: one replica unless the operator says otherwise.
              const replicas = mode !== "stopped" && values.replicas.trim() === "0" ? "1" : values.replicas;
              // Never a max below what always runs.
              const below = Number(values.maxReplicas) < Number(replicas);
              set({ mode, replicas, maxReplicas: below ? replicas : values.maxReplicas });
            }}
          >
            {MODES.map((m) => (
              <option key={m.value} value={m.value}>
                {m.label}
              </option>
            ))}
          </select>
        )}
      </Field>
      {number(
        "replicas",
        values.mode === "stopped",
        values.mode === "ondemand" ? "at most, while in use" : undefined,
      )}
      {values.mode === "always" && number("maxReplicas", false, "traffic adds replicas up to this")}
      {values.mode !== "stopped" &&
        number("targetInFlight", false, "requests a replica holds before another is added", "its slots")}
    </div>
  );
}
