import { counted, type ModelSummary } from "@llmgw/domain";
import { useMemo } from "react";
import { Link } from "../../../lib/router";
import { useNodes } from "../../fleet/api/get-nodes";
import { useQuotas } from "../../quotas/api/get-quotas";
import { healthOf } from "../health";

type Props = { models: readonly ModelSummary[]; scheduler: boolean | undefined };

/**
 * The page's first line: what is wrong, each part a link to the list filtered to it, and whether
 * the scheduler runs (off, nothing fills a model short of its replicas but agents).
 */
export function HealthLine({ models, scheduler }: Props) {
  const nodes = useNodes().data;
  const quotas = useQuotas().data;
  const health = useMemo(() => healthOf(models, nodes ?? [], quotas ?? []), [models, nodes, quotas]);
  return (
    <ul className="health-line" aria-label="Health" data-testid="health-line">
      <li data-testid="health-models">
        {health.models === 0 ? (
          "Every model has what it wants"
        ) : (
          <Link to="/models?attention=1" className="warn">
            {counted(health.models, "model")} need{health.models === 1 ? "s" : ""} attention
            {health.short > 0 ? ` (${health.short} short of wanted)` : ""}
          </Link>
        )}
      </li>
      {nodes && (
        <li data-testid="health-nodes">
          {health.down === 0 && health.draining === 0 ? (
            `${counted(nodes.length, "node")}, all ready`
          ) : (
            <>
              {health.down > 0 && (
                <Link to="/fleet?state=down" className="warn">
                  {counted(health.down, "node")} down
                </Link>
              )}
              {health.down > 0 && health.draining > 0 && ", "}
              {health.draining > 0 && (
                <Link to="/fleet?state=draining" className="warn">
                  {health.down > 0 ? health.draining : counted(health.draining, "node")} draining
                </Link>
              )}
            </>
          )}
        </li>
      )}
      {quotas && (
        <li data-testid="health-quotas">
          {health.overQuota === 0 ? (
            "no quota over its limit"
          ) : (
            <Link to="/quotas" className="warn">
              {counted(health.overQuota, "owner")} over quota
            </Link>
          )}
        </li>
      )}
      {scheduler !== undefined && (
        <li data-testid="health-scheduler" className={scheduler ? undefined : "warn"}>
          {scheduler ? "scheduler on" : "scheduler off: only agents start replicas"}
        </li>
      )}
    </ul>
  );
}
