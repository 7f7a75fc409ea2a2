import { zodResolver } from "@hookform/resolvers/zod";
import { contract } from "@llmgw/contract";
import {
  type Class,
  type MirrorEntry,
  type ModelView,
  modelFromServeForm,
  type QuotaUsage,
} from "@llmgw/domain";
import { useEffect, useRef, useState } from "react";
import { useForm } from "react-hook-form";
import { FormError } from "../../../components/ActionError";
import { ApiFailure } from "../../../lib/api";
import { useMayCall, useWhoAmI } from "../../../lib/session";
import { useDebounced } from "../../../lib/use-debounced";
import { useCreateModel } from "../api/create-model";
import { useServePlan } from "../api/get-serve-plan";
import {
  formFieldOf,
  friendlyIssue,
  initialValues,
  type WizardInput,
  type WizardOutput,
  wizardFormSchema,
} from "../wizard-form";
import { ConfirmStep } from "./ConfirmStep";
import { entryKey, PickVersion, unavailable } from "./PickVersion";
import { PlanReview } from "./PlanReview";
import { ServeFormStep } from "./ServeFormStep";
import { STEPS, StepList } from "./StepList";

type Props = {
  entries: MirrorEntry[];
  /** What the class and owner fields offer, and the owner's quota shown under its field. */
  classes: Class[];
  quotas: QuotaUsage[];
  /** A version chosen before the wizard opened (`/serve?model=…&version=…`). */
  preselect: { model: string; version: string } | null;
  onCreated: (model: ModelView) => void;
};

export function ServeWizard({ entries, classes, quotas, preselect, onCreated }: Props) {
  const chosen = preselect ? (entries.find((e) => entryKey(e) === entryKey(preselect)) ?? null) : null;
  const usable = chosen && unavailable(chosen) === null ? chosen : null;
  const [entry, setEntry] = useState<MirrorEntry | null>(usable);
  const [step, setStep] = useState(usable ? 2 : 1);
  const [submitted, setSubmitted] = useState<WizardOutput | null>(null);
  const form = useForm<WizardInput, unknown, WizardOutput>({
    resolver: zodResolver(wizardFormSchema, { error: friendlyIssue }),
    mode: "onTouched",
    defaultValues: usable ? initialValues(usable, usable.plan) : undefined,
  });
  const create = useCreateModel(onCreated);
  const mayCreate = useMayCall(contract.models.create);
  const whoAmI = useWhoAmI();

  // The memory estimate depends on the context pool: ask again when the operator settles on one.
  const typedPool = Number(form.watch("ctxPool"));
  const pool = useDebounced(
    Number.isInteger(typedPool) && typedPool > 0 ? typedPool : (entry?.plan.ctxPool ?? 0),
    400,
  );
  const planQuery = useServePlan(entry?.model ?? "", entry?.version ?? "", pool, entry !== null && pool > 0);
  const plan = planQuery.data ?? entry?.plan ?? null;
  useEffect(() => {
    if (plan && !form.getFieldState("minMemoryGB").isDirty) form.setValue("minMemoryGB", plan.minMemoryGB);
  }, [plan, form]);

  // Each new step's heading takes focus, so the keyboard starts on the new step.
  const title = useRef<HTMLHeadingElement>(null);
  const shownStep = useRef(step);
  useEffect(() => {
    if (shownStep.current === step) return;
    shownStep.current = step;
    title.current?.focus();
  }, [step]);

  const select = (next: MirrorEntry) => {
    setEntry(next);
    form.reset(initialValues(next, next.plan));
    create.reset();
  };

  const review = form.handleSubmit((values) => {
    setSubmitted(values);
    setStep(4);
  });

  const confirm = () => {
    if (!plan || !submitted || !mayCreate) return;
    create.mutate(modelFromServeForm(plan, submitted), {
      onError: (error) => {
        if (!(error instanceof ApiFailure)) return;
        let placed = false;
        // A name taken by an alias comes with its field; without one it is the name itself.
        if (error.code === "name_taken" && Object.keys(error.fields).length === 0) {
          form.setError("name", { type: "server", message: error.message });
          placed = true;
        }
        for (const [path, message] of Object.entries(error.fields)) {
          const field = formFieldOf(path);
          if (field === null) continue;
          const alias = /^aliases\.(\d+)$/.exec(path);
          const which = alias ? submitted.aliases[Number(alias[1])] : undefined;
          form.setError(field, { type: "server", message: which ? `"${which}": ${message}` : message });
          placed = true;
        }
        if (placed) setStep(3);
      },
    });
  };

  const refusal = plan?.refusal ?? null;
  return (
    <div className="wizard" data-testid="serve-wizard">
      <StepList step={step} onGo={setStep} />
      <section className="card" data-testid={`serve-step-${step}`} aria-labelledby="serve-step-title">
        <h2 id="serve-step-title" className="visually-hidden" tabIndex={-1} ref={title}>
          Step {step} of {STEPS.length}: {STEPS[step - 1]}
        </h2>
        {step === 1 && (
          <>
            <PickVersion entries={entries} selected={entry} onSelect={select} />
            <div className="actions">
              <button
                type="button"
                className="primary"
                disabled={entry === null}
                onClick={() => setStep(2)}
                data-testid="serve-next"
              >
                Next: review the plan
              </button>
            </div>
          </>
        )}
        {step === 2 && plan && (
          <>
            <h3 className="step-title">
              {plan.model} {plan.version}
            </h3>
            <PlanReview plan={plan} />
            {refusal && (
              <p className="notice notice-error" role="alert" data-testid="serve-refusal">
                {refusal}
              </p>
            )}
            <div className="actions">
              <button type="button" onClick={() => setStep(1)} data-testid="serve-back">
                Back
              </button>
              <button
                type="button"
                className="primary"
                disabled={refusal !== null}
                onClick={() => setStep(3)}
                data-testid="serve-next"
              >
                Next: settings
              </button>
            </div>
          </>
        )}
        {step === 3 && plan && (
          <form onSubmit={review} noValidate aria-label="Settings of the new model">
            <ServeFormStep
              form={form}
              classes={classes}
              quotas={quotas}
              memoryBasis={planQuery.isFetching ? "estimating for this pool…" : plan.memoryBasis}
            />
            <FormError error={create.isError ? create.error : null} testId="serve-error" />
            <div className="actions">
              <button type="button" onClick={() => setStep(2)} data-testid="serve-back">
                Back
              </button>
              <button type="submit" className="primary" data-testid="serve-next">
                Next: confirm
              </button>
            </div>
          </form>
        )}
        {step === 4 && plan && submitted && (
          <form
            onSubmit={(event) => {
              event.preventDefault();
              confirm();
            }}
            aria-label="Confirm the new model"
          >
            <ConfirmStep input={modelFromServeForm(plan, submitted)} />
            <FormError error={create.isError ? create.error : null} testId="serve-error" />
            <div className="actions">
              <button type="button" onClick={() => setStep(3)} data-testid="serve-back">
                Back
              </button>
              {mayCreate ? (
                <button
                  type="submit"
                  className="primary"
                  disabled={create.isPending}
                  data-testid="serve-submit"
                >
                  {create.isPending ? "Adding…" : "Add to the catalogue"}
                </button>
              ) : (
                <p className="notice" data-testid="serve-readonly">
                  {whoAmI ?? "Signed in"}: adding a model needs an operator or admin token.
                </p>
              )}
            </div>
          </form>
        )}
      </section>
    </div>
  );
}
