import { contract } from "@llmgw/contract";
import type { Deps } from "../deps";
import { listAudit } from "../services/listAudit";
import { listQuotas, putQuota } from "../services/putQuota";
import { handlers } from "./handlers";

export const quotaRoutes = (deps: Deps) =>
  handlers(contract.quotas, {
    list: () => listQuotas({ deps }),
    put: (c, { param, body }) =>
      putQuota({ deps, input: { owner: param.owner, limits: body }, by: c.get("actor") }),
  });

export const auditRoutes = (deps: Deps) =>
  handlers(contract.audit, { list: (_c, { query }) => listAudit({ deps, input: query }) });
