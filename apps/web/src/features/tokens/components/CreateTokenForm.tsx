import { zodResolver } from "@hookform/resolvers/zod";
import type { CreatedToken } from "@llmgw/contract";
import { type FieldError, useForm } from "react-hook-form";
import { FormError } from "../../../components/ActionError";
import { Field } from "../../../components/Field";
import { SubmitOrCancel } from "../../../components/SubmitOrCancel";
import { ApiFailure } from "../../../lib/api";
import { useCreateToken } from "../api/create-token";
import {
  EMPTY_FORM,
  formErrorOf,
  ROLE_CHOICES,
  type TokenField,
  type TokenFormInput,
  type TokenFormOutput,
  tokenFormSchema,
} from "../token-form";

const asNumberOrNull = (v: unknown) => (v === "" || v === null || v === undefined ? null : Number(v));

/** A field's message; for the models line, the first name's, saying which name it is. */
function messageAt(error: unknown, line: string): string | undefined {
  if (typeof error !== "object" || error === null) return undefined;
  const own = (error as FieldError).message;
  if (typeof own === "string") return own;
  const names = line
    .split(",")
    .map((m) => m.trim())
    .filter((m) => m !== "");
  for (const [key, nested] of Object.entries(error)) {
    const message = messageAt(nested, "");
    if (message === undefined) continue;
    const which = names[Number(key)];
    return which === undefined || message.startsWith(which) ? message : `"${which}": ${message}`;
  }
  return undefined;
}

type Props = { onCreated: (created: CreatedToken) => void; onCancel: () => void };

/** Makes a token: name, role, and what the role may carry (an agent's node, a client's limits). */
export function CreateTokenForm({ onCreated, onCancel }: Props) {
  const form = useForm<TokenFormInput, unknown, TokenFormOutput>({
    resolver: zodResolver(tokenFormSchema),
    mode: "onTouched",
    defaultValues: EMPTY_FORM,
  });
  const create = useCreateToken();
  const { register, formState, watch } = form;
  const role = watch("role");
  const errorOf = (field: TokenField) =>
    messageAt(formState.errors[field], field === "models" ? String(watch("models") ?? "") : "");

  const submit = form.handleSubmit((input) => {
    create.mutate(input, {
      onSuccess: (created) => {
        form.reset(EMPTY_FORM);
        onCreated(created);
      },
      onError: (error) => {
        if (!(error instanceof ApiFailure)) return;
        for (const [path, message] of Object.entries(error.fields)) {
          const placed = formErrorOf(path, message, input);
          if (placed) form.setError(placed.field, { type: "server", message: placed.message });
        }
      },
    });
  });

  const number = (
    field: "requestsPerMinute" | "concurrency" | "tokensPerDay",
    label: string,
    hint: string,
  ) => (
    <Field label={label} error={errorOf(field)} hint={hint} testId={`field-${field}`}>
      {(control) => (
        <input
          {...control}
          type="number"
          inputMode="numeric"
          min={1}
          step={1}
          placeholder="no limit"
          {...register(field, { setValueAs: asNumberOrNull })}
        />
      )}
    </Field>
  );

  return (
    <form className="card" onSubmit={submit} aria-label="New token" noValidate data-testid="token-form">
      <div className="field-grid">
        <Field
          label="Name"
          error={errorOf("name")}
          hint="letters, digits and . _ : -, up to 64"
          testId="field-name"
        >
          {(control) => <input {...control} {...register("name")} autoComplete="off" />}
        </Field>
        <Field
          label="Role"
          error={errorOf("role")}
          hint={ROLE_CHOICES.find((c) => c.role === role)?.what}
          testId="field-role"
        >
          {(control) => (
            <select {...control} {...register("role")}>
              {ROLE_CHOICES.map((c) => (
                <option key={c.role} value={c.role}>
                  {c.role}
                </option>
              ))}
            </select>
          )}
        </Field>
        {role === "agent" && (
          <Field
            label="Node"
            error={errorOf("node")}
            hint="the node it speaks for; blank: the node of its first heartbeat"
            testId="field-node"
          >
            {(control) => <input {...control} {...register("node")} autoComplete="off" />}
          </Field>
        )}
        {role === "client" && (
          <>
            <Field
              label="Models"
              error={errorOf("models")}
              hint="names or aliases, comma separated; blank: every model"
              testId="field-models"
            >
              {(control) => <input {...control} {...register("models")} autoComplete="off" />}
            </Field>
            {number("requestsPerMinute", "Requests a minute", "blank: no limit")}
            {number("concurrency", "Requests at once", "blank: no limit")}
            {number("tokensPerDay", "Tokens a day", "prompt and completion, per UTC day; blank: no budget")}
          </>
        )}
      </div>
      <FormError error={create.isError ? create.error : null} testId="token-error" />
      <SubmitOrCancel
        label="Create token"
        pendingLabel="Creating…"
        pending={create.isPending}
        testId="token-create"
        onCancel={onCancel}
      />
    </form>
  );
}
