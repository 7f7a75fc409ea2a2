import type { ModelView } from "@llmgw/domain";
import { useQueryClient } from "@tanstack/react-query";
import { Loaded } from "../../components/Loaded";
import { PageHeader } from "../../components/PageHeader";
import { useClasses } from "../../features/capacity/api/get-classes";
import { useMirror } from "../../features/mirror/api/get-mirror";
import { storeModel } from "../../features/models/api/get-models";
import { useQuotas } from "../../features/quotas/api/get-quotas";
import { ServeWizard } from "../../features/serve/components/ServeWizard";
import { navigate, useLocation } from "../../lib/router";

/** Loaded lazily (see App): the wizard and react-hook-form are a chunk of their own. */
export default function ServeRoute() {
  const mirror = useMirror();
  const classes = useClasses();
  const quotas = useQuotas();
  const client = useQueryClient();
  const { search } = useLocation();
  const model = search.get("model");
  const version = search.get("version");
  const onCreated = (created: ModelView) => {
    storeModel(client, created);
    navigate(`/models?model=${encodeURIComponent(created.name)}`);
  };
  return (
    <>
      <PageHeader title="Serve a model" />
      <Loaded query={mirror} what="the mirror">
        {(entries) => (
          <ServeWizard
            entries={entries}
            classes={classes.data ?? []}
            quotas={quotas.data ?? []}
            preselect={model && version ? { model, version } : null}
            onCreated={onCreated}
          />
        )}
      </Loaded>
    </>
  );
}
