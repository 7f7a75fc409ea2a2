import type { Quota } from "@llmgw/domain";
import { type FormEvent, useState } from "react";
import { FormError } from "../../../components/ActionError";
import { Field } from "../../../components/Field";
import { SubmitOrCancel } from "../../../components/SubmitOrCancel";
import { ApiFailure } from "../../../lib/api";
import { wholeNumber } from "../../../lib/units";
import { usePutQuota } from "../api/put-quota";

export const LIMITS = [
  { key: "memoryGB", label: "Memory (GB)" },
  { key: "cpuCores", label: "Cores" },
  { key: "gpus", label: "GPUs" },
  { key: "replicas", label: "Replicas" },
] as const;
type LimitKey = (typeof LIMITS)[number]["key"];
type Texts = Record<LimitKey | "owner", string>;

type Props = {
  /** The quota being changed; none to set one for a new owner. */
  quota?: Quota;
  onDone: () => void;
};

const text = (n: number | null | undefined) => (n === null || n === undefined ? "" : String(n));

/** The four limits of one owner; a blank field means no limit. */
export function QuotaEditor({ quota, onDone }: Props) {
  const put = usePutQuota();
  const [values, setValues] = useState<Texts>({
    owner: quota?.owner ?? "",
    memoryGB: text(quota?.memoryGB),
    cpuCores: text(quota?.cpuCores),
    gpus: text(quota?.gpus),
    replicas: text(quota?.replicas),
  });
  const [errors, setErrors] = useState<Partial<Texts>>({});

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const found: Partial<Texts> = {};
    const owner = values.owner.trim();
    if (owner === "") found.owner = "whose quota is this?";
    const limits = {} as Record<LimitKey, number | null>;
    for (const { key } of LIMITS) {
      const raw = values[key].trim();
      const n = raw === "" ? null : wholeNumber(raw);
      if (raw !== "" && n === null) found[key] = "a whole number, or blank for no limit";
      limits[key] = n;
    }
    setErrors(found);
    if (Object.keys(found).length > 0) return;
    put.mutate(
      { owner, ...limits },
      {
        onSuccess: onDone,
        onError: (error) => {
          if (error instanceof ApiFailure) setErrors(error.fields as Partial<Texts>);
        },
      },
    );
  };

  return (
    <form
      className="quota-editor"
      onSubmit={submit}
      aria-label={quota ? `Limits of ${quota.owner}` : "New quota"}
    >
      <div className="field-grid">
        {!quota && (
          <Field label="Owner" error={errors.owner} testId="field-owner">
            {(control) => (
              <input
                {...control}
                name="owner"
                autoComplete="off"
                value={values.owner}
                onChange={(e) => setValues({ ...values, owner: e.target.value })}
              />
            )}
          </Field>
        )}
        {LIMITS.map(({ key, label }) => (
          <Field key={key} label={`${label} limit`} error={errors[key]} testId={`field-${key}`}>
            {(control) => (
              <input
                {...control}
                name={key}
                type="number"
                min={0}
                step={1}
                inputMode="numeric"
                placeholder="no limit"
                value={values[key]}
                onChange={(e) => setValues({ ...values, [key]: e.target.value })}
              />
            )}
          </Field>
        ))}
      </div>
      <FormError error={put.isError ? put.error : null} testId="quota-error" />
      <SubmitOrCancel
        label="Save limits"
        pendingLabel="Saving…"
        pending={put.isPending}
        testId="quota-save"
        onCancel={onDone}
      />
    </form>
  );
}
