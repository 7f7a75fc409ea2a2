import { Loaded } from "../../components/Loaded";
import { PageHeader } from "../../components/PageHeader";
import { useAudit } from "../../features/audit/api/get-audit";
import { AuditFilter } from "../../features/audit/components/AuditFilter";
import { AuditLog } from "../../features/audit/components/AuditLog";
import { useModels } from "../../features/models/api/get-models";
import { setSearchParam, useLocation } from "../../lib/router";

export function AuditRoute() {
  const { search } = useLocation();
  const model = search.get("model");
  const audit = useAudit(model);
  const models = useModels();
  return (
    <>
      <PageHeader title="Audit" />
      <AuditFilter
        model={model}
        models={(models.data ?? []).map((m) => m.name)}
        onChange={(next) => setSearchParam("model", next)}
      />
      <Loaded query={audit} what="the audit log">
        {(entries) => <AuditLog entries={entries} />}
      </Loaded>
    </>
  );
}
