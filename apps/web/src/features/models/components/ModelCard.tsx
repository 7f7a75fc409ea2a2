import { contract } from "@llmgw/contract";
import {
  type Class,
  type ConflictBody,
  type ModelPatch,
  type ModelSummary,
  replicasWanted,
  runningText,
} from "@llmgw/domain";
import { type FormEvent, memo, useEffect, useState } from "react";
import { ReplicaActivity } from "../../../components/ReplicaProgress";
import { messageOf } from "../../../components/Status";
import { TrafficPanel } from "../../../components/TrafficPanel";
import { ApiFailure } from "../../../lib/api";
import { Link } from "../../../lib/router";
import { noteModel, scaling } from "../../../lib/scaling";
import { useMayCall, useWhoAmI } from "../../../lib/session";
import { useModelHeadroom } from "../../capacity/api/get-headroom";
import { conflictOf, useUpdateModel } from "../api/update-model";
import {
  CARD_FIELDS,
  type CardErrors,
  type CardValues,
  cardValuesOf,
  isCardField,
  patchFrom,
} from "../card-fields";
import { AutoscaleLine } from "./AutoscaleLine";
import { BenchPanel } from "./BenchPanel";
import { ConflictNotice } from "./ConflictNotice";
import { MeasuredMemory, MemoryHint } from "./MeasuredMemory";
import { ModelFields } from "./ModelFields";
import { Placing } from "./Placing";
import { ProfileReplicas } from "./ProfileReplicas";
import { RemoveModel } from "./RemoveModel";
import { ReplicaList } from "./ReplicaList";
import { RolloutPanel } from "./RolloutPanel";
import { WakeModel } from "./WakeModel";

type Props = { model: ModelSummary; classes: Class[]; highlighted?: boolean };

/**
 * What the operator started from (values and version) and the fields they have touched since.
 * Untouched fields keep following the server, so a change made elsewhere shows while they type.
 */
type Edit = { base: CardValues; version: number; touched: Partial<CardValues> };

/** Memoised: an event changes one model of hundreds, and the others' views keep their identity. */
export const ModelCard = memo(function ModelCard({ model, classes, highlighted = false }: Props) {
  const update = useUpdateModel();
  const [edit, setEdit] = useState<Edit | null>(null);
  const [errors, setErrors] = useState<CardErrors>({});
  const [message, setMessage] = useState<string | null>(null);
  const [conflict, setConflict] = useState<{ body: ConflictBody; mine: ModelPatch } | null>(null);
  const [saved, setSaved] = useState(false);

  const declared = model.origin === "config";
  // A role the server would refuse gets no controls to be refused with (it refuses anyway).
  const mayEdit = useMayCall(contract.models.patch);
  const whoAmI = useWhoAmI();
  const readOnly = declared || !mayEdit;
  const current = cardValuesOf(model);
  const values: CardValues = { ...current, ...edit?.touched };
  const titleId = `model-title-${model.name}`;
  // The chart's replicas start from what the card first showed (events note every change after).
  useEffect(() => noteModel(scaling, model), [model]);

  const change = (next: CardValues) => {
    setSaved(false);
    const touched: Partial<CardValues> = { ...edit?.touched };
    const retyped: CardErrors = { ...errors };
    for (const field of CARD_FIELDS) {
      if (next[field] === values[field]) continue;
      Object.assign(touched, { [field]: next[field] });
      // The server's word on a field stands until the operator types over it.
      delete retyped[field];
    }
    setErrors(retyped);
    setEdit({ base: edit?.base ?? current, version: edit?.version ?? model.version, touched });
  };

  const send = (patch: ModelPatch, version: number, restore: Edit | null) => {
    setErrors({});
    setMessage(null);
    setConflict(null);
    setEdit(null);
    update.mutate(
      { name: model.name, patch, version },
      {
        onSuccess: () => setSaved(true),
        onError: (error) => {
          const stale = conflictOf(error);
          if (stale) {
            setConflict({ body: stale, mine: patch });
            return;
          }
          setEdit(restore);
          const fieldErrors: CardErrors = {};
          if (error instanceof ApiFailure) {
            for (const [key, text] of Object.entries(error.fields))
              if (isCardField(key)) fieldErrors[key] = text;
          }
          setErrors(fieldErrors);
          setMessage(messageOf(error));
        },
      },
    );
  };

  // Checked as the operator types: a value the API would refuse says why under its field, as the
  // wizard's fields do, instead of only leaving Save greyed out.
  const check = edit ? patchFrom(edit.base, { ...edit.base, ...edit.touched }) : null;
  const invalid = check !== null && Object.keys(check.errors).length > 0;
  const dirty = check !== null && Object.keys(check.patch).length > 0;

  const save = (event: FormEvent) => {
    event.preventDefault();
    if (!edit || !check || invalid) return;
    const { patch } = check;
    if (Object.keys(patch).length === 0) {
      setEdit(null);
      return;
    }
    send(patch, edit.version, edit);
  };

  const discard = () => {
    setEdit(null);
    setErrors({});
    setMessage(null);
  };

  return (
    <article
      className={`card model-card${highlighted ? " card-highlighted" : ""}`}
      aria-labelledby={titleId}
      data-testid={`model-card-${model.name}`}
      id={`model-${model.name}`}
      tabIndex={-1}
    >
      <header className="card-header">
        <h2 id={titleId} className="card-title">
          {model.name}
        </h2>
        <span className="badge" data-testid="model-version" title="version">
          v{model.version}
        </span>
        {declared && <span className="badge badge-config">llmgw.yaml</span>}
      </header>
      {model.description && <p className="muted">{model.description}</p>}
      <p className="meta">
        {model.profiles[0]?.engine ?? "no engine"} · context {model.contextLength.toLocaleString()} · changed
        by {model.updatedBy || "—"} ·{" "}
        <Link to={`/audit?model=${encodeURIComponent(model.name)}`} data-testid="model-history">
          history
        </Link>
      </p>
      {declared && (
        <p className="notice" data-testid="model-readonly">
          Declared in llmgw.yaml; edit it there. The API does not change models declared in configuration.
        </p>
      )}
      {!declared && !mayEdit && (
        <p className="notice" data-testid="model-readonly-role">
          {whoAmI ?? "Signed in"}: changing models needs an operator or admin token.
        </p>
      )}
      <form onSubmit={save} noValidate aria-label={`Edit ${model.name}`}>
        <fieldset disabled={readOnly} className="plain">
          <legend className="visually-hidden">Settings of {model.name}</legend>
          <ModelFields
            values={values}
            errors={{ ...errors, ...check?.errors }}
            classes={classes}
            onChange={change}
            memoryHint={<MeasuredMemory model={model} />}
          />
          <MemoryHint model={model} />
        </fieldset>
        {conflict && (
          <ConflictNotice
            conflict={conflict.body}
            mine={conflict.mine}
            busy={update.isPending}
            onReapply={() => send(conflict.mine, conflict.body.current.version, null)}
            onDiscard={() => setConflict(null)}
          />
        )}
        {message && (
          <p className="notice notice-error" role="alert" data-testid="model-error">
            {message}
          </p>
        )}
        {!readOnly && (
          <div className="actions">
            <button
              type="submit"
              className="primary"
              disabled={!dirty || invalid || update.isPending}
              data-testid="model-save"
            >
              {update.isPending ? "Saving…" : "Save changes"}
            </button>
            <button type="button" onClick={discard} disabled={edit === null}>
              Discard
            </button>
            <span role="status" className="saved" data-testid="model-saved">
              {saved && !edit ? "Saved" : ""}
            </span>
            <span className="spacer" />
            <RemoveModel name={model.name} />
          </div>
        )}
      </form>
      {model.mode === "ondemand" && <WakeModel name={model.name} />}
      <RolloutPanel model={model} />
      <AutoscaleLine model={model} />
      <TrafficPanel model={model.name} rollout={model.rollout} />
      <Placing model={model} />
      <BenchPanel model={model} />
      <Running model={model} />
      <ReplicaActivity replicas={model.replicas} />
      <ProfileReplicas model={model} />
      <ReplicaList replicas={model.replicas} />
    </article>
  );
});

/** "1 of 2 running · 1 starting", with the counts as they are now (the live headroom). */
function Running({ model }: { model: ModelSummary }) {
  const headroom = useModelHeadroom(model);
  return (
    <p className="muted" data-testid="model-running">
      {runningText(headroom, replicasWanted(model))}
    </p>
  );
}
