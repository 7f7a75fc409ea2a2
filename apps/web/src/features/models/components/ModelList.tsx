import { type Class, type ModelSummary, modelAttention, type OverQuota } from "@llmgw/domain";
import { useDeferredValue, useEffect, useMemo, useState } from "react";
import { AttentionToggle, attentionFirst, OrderSelect } from "../../../components/AttentionToggle";
import { countText, NameSearch } from "../../../components/NameSearch";
import { Empty } from "../../../components/Status";
import { VirtualCards } from "../../../components/VirtualCards";
import { matchesSearch } from "../../../lib/grid";
import { Link } from "../../../lib/router";
import { ModelCard } from "./ModelCard";

type Props = {
  models: ModelSummary[];
  classes: Class[];
  /** Owners over their quota (`overQuotaOf`): their models need attention, as on Capacity. */
  overQuota: OverQuota;
  focus?: string | null;
  /** Only the models that need attention (the address's `attention=1`). */
  attention?: boolean;
  /** Those that need attention first (the address's `order=attention`). */
  first?: boolean;
};

/** A model card's height before it is drawn: a card with its fields, most with one or two replicas. */
const CARD_ESTIMATE_PX = 560;

export function ModelList({
  models,
  classes,
  overQuota,
  focus = null,
  attention = false,
  first = false,
}: Props) {
  const [search, setSearch] = useState("");
  // The list follows the search a moment later, so the keystroke is drawn first.
  const searched = useDeferredValue(search);
  const shown = useMemo(() => {
    const needs = (m: ModelSummary) => modelAttention(m, overQuota.get(m.owner)).length > 0;
    const found = models.filter(
      (m) => (!attention || needs(m)) && matchesSearch(searched, m.name, ...m.aliases),
    );
    return first ? attentionFirst(found, needs) : found;
  }, [models, overQuota, searched, attention, first]);
  // The card a link points at stays drawn wherever the page is scrolled, so it can be focused.
  const focusIndex = focus === null ? -1 : shown.findIndex((m) => m.name === focus);
  const focused = focusIndex >= 0;
  useEffect(() => {
    if (!focused || focus === null) return;
    const card = document.getElementById(`model-${focus}`);
    card?.scrollIntoView({ block: "center" });
    card?.focus({ preventScroll: true });
  }, [focus, focused]);

  if (models.length === 0)
    return (
      <Empty>
        No models in the catalogue yet. Serve one from the <Link to="/mirror">mirror</Link>.
      </Empty>
    );
  return (
    <>
      <NameSearch
        id="models-search"
        what="the models"
        placeholder="name or alias"
        value={search}
        onChange={setSearch}
        count={countText(shown.length, models.length, "models")}
        testId="models-count"
      >
        <OrderSelect id="models-order" attention={first} />
        <AttentionToggle id="models-attention" checked={attention} />
      </NameSearch>
      {shown.length === 0 ? (
        <Empty>No model matches {attention ? "the search and needs attention" : "the search"}.</Empty>
      ) : (
        <VirtualCards
          items={shown}
          keyOf={(m) => m.name}
          render={(model) => <ModelCard model={model} classes={classes} highlighted={model.name === focus} />}
          estimate={CARD_ESTIMATE_PX}
          keep={focusIndex}
          className="card-list"
          testId="model-list"
        />
      )}
    </>
  );
}
