import { contract } from "@llmgw/contract";
import { usageCsv } from "@llmgw/domain";
import { Body } from "../body";
import type { Deps } from "../deps";
import { readUsage } from "../services/readUsage";
import { handlers } from "./handlers";

export const usageRoutes = (deps: Deps) =>
  handlers(contract.usage, {
    read: async (c, { query }) => {
      const reading = await readUsage({ deps, input: query });
      // Gzipped for a client that takes it: a reading of 90 days by token is megabytes of JSON.
      if (!/\btext\/csv\b/.test(c.req.header("accept") ?? "")) return new Body(reading);
      return c.body(usageCsv(reading.rows, reading.by), 200, {
        "content-type": "text/csv; charset=utf-8",
      }) as never;
    },
  });
