import type { Class, ModelSummary } from "@llmgw/domain";
import { counted, type OverQuota, overQuotaOf } from "@llmgw/domain";
import { useCallback, useDeferredValue, useMemo, useState } from "react";
import { AttentionToggle, attentionAsked } from "../../../components/AttentionToggle";
import { Empty } from "../../../components/Status";
import { VirtualCardsOnDemand } from "../../../components/VirtualCardsOnDemand";
import { useLocation } from "../../../lib/router";
import { useQuotas } from "../../quotas/api/get-quotas";
import { useHeadroom } from "../api/get-headroom";
import {
  ALL,
  type BoardFilter,
  type BoardSort,
  boardCards,
  initialFilter,
  ownersOf,
  shownCards,
} from "../board";
import { CapacityCard } from "./CapacityCard";

type Props = { models: ModelSummary[]; classes: Class[] };

/** A capacity card's height before it is drawn, and the narrowest column (the stylesheet's `.card-grid`). */
const CARD_ESTIMATE_PX = 370;
const CARD_MIN_WIDTH_PX = 340;

/**
 * Every model's capacity card, searchable, filtered by class and owner, ordered by headroom. The
 * headroom comes from its own live list, asked for once the models are here (asking for both at
 * once, 2 MB and 1.6 MB with 500 models, delayed the first cards); until it arrives each model's
 * view brings its own. Only the cards near the view are drawn (`VirtualCardsOnDemand`, as Models
 * and Fleet do): with 2,000 models, drawing every card made each keystroke in the search cost
 * about 100 ms.
 */
export function CapacityBoard({ models, classes }: Props) {
  const [chosen, setFilter] = useState<BoardFilter>(initialFilter);
  const attention = attentionAsked(useLocation().search);
  // The cards follow the search a moment later, so the keystroke is drawn first.
  const searched = useDeferredValue(chosen.search);
  const filter = useMemo(() => ({ ...chosen, search: searched, attention }), [chosen, searched, attention]);
  const headroom = useHeadroom(() => models.map((m) => m.headroom)).data;
  const quotas = useQuotas().data;
  const overQuota: OverQuota = useMemo(() => overQuotaOf(quotas ?? []), [quotas]);
  const cards = useMemo(() => boardCards(models, headroom), [models, headroom]);
  const shown = useMemo(() => shownCards(cards, filter, overQuota), [cards, filter, overQuota]);
  const owners = useMemo(() => ownersOf(models), [models]);
  const set = (patch: Partial<BoardFilter>) => setFilter((f) => ({ ...f, ...patch }));
  // Which cards have their per-node list open, kept here: a card scrolled out of view is not drawn,
  // and one drawn again shows its list as it was left.
  const [opened, setOpened] = useState<ReadonlySet<string>>(() => new Set());
  const toggle = useCallback((model: string, open: boolean) => {
    setOpened((held) => {
      if (held.has(model) === open) return held;
      const next = new Set(held);
      if (open) next.add(model);
      else next.delete(model);
      return next;
    });
  }, []);

  // Nothing to search, filter or sort: no search box and "0 models" over an empty line.
  if (models.length === 0)
    return (
      <section aria-labelledby="models-capacity-title">
        <h2 id="models-capacity-title" className="section-title">
          Models
        </h2>
        <Empty>No models in the catalogue yet.</Empty>
      </section>
    );
  return (
    <section aria-labelledby="models-capacity-title">
      <h2 id="models-capacity-title" className="section-title">
        Models
      </h2>
      <search className="filters" aria-label="Filter the models">
        <div className="field">
          <label htmlFor="capacity-search">Search</label>
          <input
            id="capacity-search"
            type="search"
            placeholder="name, alias or description"
            value={chosen.search}
            onChange={(e) => set({ search: e.target.value })}
          />
        </div>
        <div className="field">
          <label htmlFor="capacity-class">Class</label>
          <select
            id="capacity-class"
            value={filter.className}
            onChange={(e) => set({ className: e.target.value })}
          >
            <option value={ALL}>All classes</option>
            {classes.map((c) => (
              <option key={c.name} value={c.name}>
                {c.name}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor="capacity-owner">Owner</label>
          <select id="capacity-owner" value={filter.owner} onChange={(e) => set({ owner: e.target.value })}>
            <option value={ALL}>All owners</option>
            {owners.map((o) =>
              o === "" ? null : (
                <option key={o} value={o}>
                  {o}
                </option>
              ),
            )}
          </select>
        </div>
        <div className="field">
          <label htmlFor="capacity-sort">Sort by</label>
          <select
            id="capacity-sort"
            value={filter.sort}
            onChange={(e) => set({ sort: e.target.value as BoardSort })}
          >
            <option value="name">Name</option>
            <option value="attention">Needs attention first</option>
            <option value="headroom-desc">Most headroom first</option>
            <option value="headroom-asc">Least headroom first</option>
          </select>
        </div>
        <AttentionToggle id="capacity-attention" checked={attention} />
      </search>
      <p className="muted" role="status" data-testid="capacity-count">
        {shown.length === models.length
          ? counted(models.length, "model")
          : `${shown.length} of ${counted(models.length, "model")}`}
      </p>
      {shown.length === 0 ? (
        <Empty>No model matches these filters.</Empty>
      ) : (
        <VirtualCardsOnDemand
          items={shown}
          keyOf={(card) => card.model.name}
          render={({ model, headroom }) => (
            <CapacityCard
              model={model}
              headroom={headroom}
              classes={classes}
              overQuota={overQuota.get(model.owner)}
              nodesOpen={opened.has(model.name)}
              onNodesToggle={toggle}
            />
          )}
          estimate={CARD_ESTIMATE_PX}
          minColumnWidth={CARD_MIN_WIDTH_PX}
          className="card-grid"
          testId="capacity-list"
        />
      )}
    </section>
  );
}
