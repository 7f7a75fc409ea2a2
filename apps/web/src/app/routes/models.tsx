import { type Class, overQuotaOf } from "@llmgw/domain";
import { useMemo } from "react";
import { attentionAsked, attentionFirstAsked } from "../../components/AttentionToggle";
import { Loaded } from "../../components/Loaded";
import { PageHeader } from "../../components/PageHeader";
import { useClasses } from "../../features/capacity/api/get-classes";
import { useModels } from "../../features/models/api/get-models";
import { ModelList } from "../../features/models/components/ModelList";
import { useQuotas } from "../../features/quotas/api/get-quotas";
import { Link, useLocation } from "../../lib/router";

/** One array while the classes load, so the memoised cards see the same props until they arrive. */
const NO_CLASSES: Class[] = [];

export function ModelsRoute() {
  const models = useModels();
  const classes = useClasses();
  const quotas = useQuotas().data;
  // Owners over quota mark their models, as on Capacity; none until the quotas have answered.
  const overQuota = useMemo(() => overQuotaOf(quotas ?? []), [quotas]);
  const { search } = useLocation();
  return (
    <>
      <PageHeader title="Models">
        <Link to="/serve" className="button">
          Serve a mirrored version…
        </Link>
      </PageHeader>
      <Loaded query={models} what="the models">
        {(data) => (
          <ModelList
            models={data}
            classes={classes.data ?? NO_CLASSES}
            overQuota={overQuota}
            focus={search.get("model")}
            attention={attentionAsked(search)}
            first={attentionFirstAsked(search)}
          />
        )}
      </Loaded>
    </>
  );
}
