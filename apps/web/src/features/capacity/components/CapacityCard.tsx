import {
  type Class,
  counted,
  type HeadroomSummary,
  type ModelSummary,
  notRunning,
  replicasWanted,
} from "@llmgw/domain";
import { memo, useEffect } from "react";
import { ReplicaActivity } from "../../../components/ReplicaProgress";
import { TrafficPanel } from "../../../components/TrafficPanel";
import { classTone } from "../../../lib/classes";
import { Link } from "../../../lib/router";
import { rangeText } from "../../../lib/scale-words";
import { noteModel, scaling } from "../../../lib/scaling";
import { gb } from "../../../lib/units";
import { cardAttention } from "../board";
import { HeadroomAnswer } from "./HeadroomAnswer";
import { NodeLines } from "./NodeLines";

type Props = {
  model: ModelSummary;
  headroom: HeadroomSummary;
  classes: Class[];
  /** Its owner's over-quota sentence, when the owner is over (a string: the memo compares it by value). */
  overQuota?: string | undefined;
  /** Whether its per-node list is open (the board keeps it while the card is scrolled away). */
  nodesOpen: boolean;
  onNodesToggle: (model: string, open: boolean) => void;
};

const MODE_WORDS = { always: "always on", ondemand: "on demand", stopped: "stopped" } as const;

/**
 * One model's capacity: what it runs, what it could still get, and what stands in the way.
 * Memoised: an event moves one card of hundreds, and the query cache keeps the others' model and
 * headroom objects identical, so only the card whose props changed renders again.
 */
export const CapacityCard = memo(function CapacityCard({
  model,
  headroom,
  classes,
  overQuota,
  nodesOpen,
  onNodesToggle,
}: Props) {
  const titleId = `capacity-title-${model.name}`;
  const attention = cardAttention({ model, headroom }, overQuota);
  const wanted = replicasWanted(model);
  // The chart's replicas start from what the card first showed (events note every change after).
  useEffect(() => noteModel(scaling, model), [model]);
  return (
    <article
      className={attention.length > 0 ? "card capacity-card card-attention" : "card capacity-card"}
      aria-labelledby={titleId}
      data-testid={`capacity-card-${model.name}`}
    >
      <header className="card-header">
        <h2 id={titleId} className="card-title">
          {model.name}
        </h2>
        <span className="badge badge-class" data-testid="model-class">
          <span
            className="swatch"
            style={{ background: classTone(model.class, classes) }}
            aria-hidden="true"
          />
          {model.class}
        </span>
        <span className="badge" data-testid="model-mode">
          {MODE_WORDS[model.mode]}
        </span>
      </header>
      <p className="meta">
        {model.owner ? `owner ${model.owner}` : "unowned"} · each replica needs {gb(headroom.need.memoryGB)},{" "}
        {counted(headroom.need.cpuCores, "core")}
        {headroom.need.gpus > 0 ? `, ${counted(headroom.need.gpus, "GPU")}` : ""}
      </p>
      <p className="replica-count" data-testid="replicas">
        <span className="strong" data-testid="replicas-current">
          {headroom.current}
        </span>
        {" / "}
        <span data-testid="replicas-wanted">{wanted}</span> replicas{" "}
        {model.mode === "ondemand" && model.autoscale === null ? "(on demand, at most)" : "running"}
        {model.autoscale !== null && (
          <span className="muted" data-testid="replicas-range">
            {" "}
            of {rangeText(model.scaling)}
          </span>
        )}
        {notRunning(headroom).map((part) => (
          <span key={part} className="muted" data-testid="replicas-apart">
            {" · "}
            {part}
          </span>
        ))}
      </p>
      {attention.length > 0 && (
        <ul className="attention-list" aria-label="Needs attention" data-testid="card-attention">
          {attention.map((a) => (
            <li key={a.kind} data-testid={`attention-${a.kind}`}>
              {a.text}
            </li>
          ))}
        </ul>
      )}
      <ReplicaActivity replicas={model.replicas} />
      <TrafficPanel model={model.name} />
      {headroom.limitedBy === "unknown-need" ? (
        <p className="notice notice-warn" data-testid="headroom-unknown">
          Headroom cannot be counted: this model asks for no memory, cores or GPUs.{" "}
          <Link to={`/models?model=${encodeURIComponent(model.name)}`}>Set its memory and cores</Link>.
        </p>
      ) : (
        <HeadroomAnswer headroom={headroom} />
      )}
      <NodeLines headroom={headroom} open={nodesOpen} onToggle={(open) => onNodesToggle(model.name, open)} />
    </article>
  );
});
