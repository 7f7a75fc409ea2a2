import { contract } from "@llmgw/contract";
import { usageCsv } from "@llmgw/domain";
import type { Deps } from "../deps";
import { readUsage } from "../services/readUsage";
import { handlers } from "./handlers";

export const usageRoutes = (deps: Deps) =>
  handlers(contract.usage, {
    read: async (c, { query }) => {
      const reading = await readUsage({ deps, input: query });
      if (!/\btext\/csv\b/.test(c.req.header("accept") ?? "")) return reading;
      return c.body(usageCsv(reading.rows, reading.by), 200, {
        "content-type": "text/csv; charset=utf-8",
      }) as never;
    },
  });
