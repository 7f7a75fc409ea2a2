import { addCounts, countsOf, hourOf, NO_USAGE_KEY, type UsageRow } from "@llmgw/domain";
import type { GatewayMeter, RequestOutcome } from "../gateway/meter";
import type { UsageMetrics } from "./metrics";

/**
 * This process's usage since its last write (SPEC §12.1), summed in memory per hour, model,
 * client token and owner: the hot path adds to one map entry, the recorder takes it all once a
 * second. Told by the gateway's meter, once per request.
 */
export class UsageTally {
  #rows = new Map<string, UsageRow>();

  constructor(private readonly now: () => number) {}

  add(outcome: RequestOutcome): void {
    const counts = countsOf(outcome);
    if (counts === null) return;
    const hour = hourOf(this.now());
    const model = outcome.model || NO_USAGE_KEY;
    const token = outcome.clientToken ?? NO_USAGE_KEY;
    const owner = outcome.owner || NO_USAGE_KEY;
    const key = `${hour}\u0000${model}\u0000${token}\u0000${owner}`;
    const row = this.#rows.get(key);
    if (row) addCounts(row, counts);
    else this.#rows.set(key, { hour, model, token, owner, ...counts });
  }

  /** Everything counted since the last take, and an empty tally from here. */
  take(): UsageRow[] {
    const rows = [...this.#rows.values()];
    this.#rows = new Map();
    return rows;
  }

  /** Rows a failed write did not store: added back, so the next write carries them. */
  putBack(rows: readonly UsageRow[]): void {
    for (const row of rows) {
      const key = `${row.hour}\u0000${row.model}\u0000${row.token}\u0000${row.owner}`;
      const held = this.#rows.get(key);
      if (held) addCounts(held, row);
      else this.#rows.set(key, { ...row });
    }
  }
}

/** A meter that tells `first` and the tally: the gateway keeps its one meter. */
export function withUsage(first: GatewayMeter, tally: UsageTally, metrics?: UsageMetrics): GatewayMeter {
  return {
    finished(outcome) {
      first.finished(outcome);
      tally.add(outcome);
      metrics?.add(outcome);
    },
    coldStart: (model, ms) => first.coldStart(model, ms),
  };
}
