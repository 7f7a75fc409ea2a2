import { Counter, type Registry } from "prom-client";

/** SPEC §12.4: `llmgw_budget_refusals_total{token}`, each 429 `budget_exceeded` of this process. */
export function budgetRefusals(registry: Registry): (token: string) => void {
  const refusals = new Counter({
    name: "llmgw_budget_refusals_total",
    help: "Requests refused with 429 budget_exceeded, by client token",
    labelNames: ["token"],
    registers: [registry],
  });
  return (token) => refusals.inc({ token });
}
