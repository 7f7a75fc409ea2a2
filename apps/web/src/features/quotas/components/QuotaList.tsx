import { contract } from "@llmgw/contract";
import type { QuotaUsage } from "@llmgw/domain";
import { useState } from "react";
import { Empty } from "../../../components/Status";
import { useMayCall, useWhoAmI } from "../../../lib/session";
import { gb, percent } from "../../../lib/units";
import { LIMITS, QuotaEditor } from "./QuotaEditor";

export function QuotaList({ quotas }: { quotas: QuotaUsage[] }) {
  const [adding, setAdding] = useState(false);
  const maySet = useMayCall(contract.quotas.put);
  const whoAmI = useWhoAmI();
  return (
    <>
      <div className="actions page-actions">
        {!maySet ? (
          <p className="notice" data-testid="quota-readonly">
            {whoAmI ?? "Signed in"}: setting quotas needs an admin token.
          </p>
        ) : adding ? null : (
          <button type="button" onClick={() => setAdding(true)} data-testid="quota-add">
            Set a quota for an owner…
          </button>
        )}
      </div>
      {adding && (
        <section className="card" aria-label="New quota">
          <QuotaEditor onDone={() => setAdding(false)} />
        </section>
      )}
      {quotas.length === 0 ? (
        <Empty>No quotas: every owner may use the whole fleet.</Empty>
      ) : (
        <div className="card-grid">
          {quotas.map((q) => (
            <QuotaCard key={q.owner} quota={q} editable={maySet} />
          ))}
        </div>
      )}
    </>
  );
}

function QuotaCard({ quota, editable }: { quota: QuotaUsage; editable: boolean }) {
  const [editing, setEditing] = useState(false);
  const owner = quota.owner || "unowned";
  const titleId = `quota-title-${owner}`;
  return (
    <article className="card" aria-labelledby={titleId} data-testid={`quota-card-${owner}`}>
      <header className="card-header">
        <h2 id={titleId} className="card-title">
          {owner}
        </h2>
      </header>
      {editing ? (
        <QuotaEditor quota={quota} onDone={() => setEditing(false)} />
      ) : (
        <>
          <dl className="usage">
            {LIMITS.map(({ key, label }) => {
              const limit = quota[key];
              const used = quota.used[key];
              const show = key === "memoryGB" ? gb : String;
              return (
                <div key={key} data-testid={`quota-${key}`}>
                  <dt>{label.replace(" (GB)", "")}</dt>
                  <dd>
                    {show(used)} {limit === null ? "used · no limit" : `of ${show(limit)}`}
                    {limit !== null && (
                      <meter
                        min={0}
                        max={Math.max(limit, 1)}
                        value={used}
                        high={limit * 0.9}
                        optimum={0}
                        aria-label={`${label} used of the limit`}
                        title={`${percent(used, limit)}%`}
                      />
                    )}
                  </dd>
                </div>
              );
            })}
          </dl>
          {editable && (
            <div className="actions">
              <button
                type="button"
                onClick={() => setEditing(true)}
                aria-label={`Edit limits of ${owner}`}
                data-testid="quota-edit"
              >
                Edit limits
              </button>
            </div>
          )}
        </>
      )}
    </article>
  );
}
