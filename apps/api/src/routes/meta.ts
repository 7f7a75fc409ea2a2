import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { serveStatic } from "@hono/node-server/serve-static";
import { contract } from "@llmgw/contract";
import type { Deps } from "../deps";
import { AppError } from "../errors";
import type { AppMetrics } from "../metrics";
import { openApiDocument } from "../openapi";
import { health } from "../services/health";
import { eventStream } from "./events";
import { handlers } from "./handlers";

/** The event stream, this API's description, health, figures, and the dashboard's page. */
export function metaRoutes(deps: Deps, metrics: AppMetrics, webDist: string | null) {
  const page = webDist && existsSync(join(webDist, "index.html")) ? join(webDist, "index.html") : null;
  let document: ReturnType<typeof openApiDocument> | null = null;
  return handlers(contract.meta, {
    events: eventStream(deps.hub, deps.store.events, { logger: deps.log }),
    openapi: () => {
      document ??= openApiDocument();
      return document;
    },
    notFound: (c) => {
      throw new AppError({
        code: "not_found",
        message: `no such endpoint: ${c.req.method} ${c.req.path}`,
      });
    },
    health: async (c) => {
      const found = await health({ deps });
      return found.ok ? found : c.json(found, 503);
    },
    metrics: async (c) => c.text(await metrics.page(), 200, { "Content-Type": metrics.contentType }),
    // Read per request, not at start: a rebuilt dashboard is served without a restart.
    dashboard: {
      // Its files first; the page answers every other GET, so the dashboard's own routes load.
      before: webDist && page ? [serveStatic({ root: webDist })] : [],
      handle: (c) => {
        if (!page)
          throw new AppError({
            code: "not_found",
            message: `nothing here: ${c.req.method} ${c.req.path}`,
          });
        return c.html(readFileSync(page, "utf8"));
      },
    },
  });
}
