import type { Class, ModelSummary } from "@llmgw/domain";
import { useEffect } from "react";
import { Empty } from "../../../components/Status";
import { ModelCard } from "./ModelCard";

type Props = { models: ModelSummary[]; classes: Class[]; focus?: string | null };

export function ModelList({ models, classes, focus = null }: Props) {
  const focused = focus !== null && models.some((m) => m.name === focus);
  useEffect(() => {
    if (!focused || focus === null) return;
    const card = document.getElementById(`model-${focus}`);
    card?.scrollIntoView({ block: "center" });
    card?.focus({ preventScroll: true });
  }, [focus, focused]);

  if (models.length === 0) return <Empty>No models in the catalogue yet. Serve one from the mirror.</Empty>;
  return (
    <div className="card-list" data-testid="model-list">
      {models.map((model) => (
        <ModelCard key={model.name} model={model} classes={classes} highlighted={model.name === focus} />
      ))}
    </div>
  );
}
