import { contract } from "@llmgw/contract";
import type { MiddlewareHandler } from "hono";
import type { Auth } from "../auth";
import type { Deps } from "../deps";
import type { AppEnv } from "../env";
import { AppError } from "../errors";
import { heartbeat } from "../services/heartbeat";
import { BeatQueue } from "../services/heartbeatWrites";
import { handlers } from "./handlers";

/** The port this request reached llmgw on (its listener's own, behind any proxy); null in process. */
function ownPortOf(env: unknown): number | null {
  const port = (env as { incoming?: { socket?: { localPort?: unknown } } } | undefined)?.incoming?.socket
    ?.localPort;
  return typeof port === "number" ? port : null;
}

export function agentRoutes(deps: Deps, auth: Auth) {
  /** The app's heartbeats waiting to be committed together (services/heartbeatWrites.ts). */
  const beats = new BeatQueue();
  /** Before the body is read: a flood of beats costs the server no parsing. */
  const limited: MiddlewareHandler<AppEnv> = async (c, next) => {
    const token = c.get("token");
    const wait = token ? auth.heartbeats.take(token.name, deps.now().getTime()) : 0;
    if (wait > 0) {
      throw new AppError({
        code: "rate_limited",
        message: `more than ${auth.heartbeats.attempts} heartbeats in 10 s from ${token?.name}; try again in ${wait} s`,
        headers: { "Retry-After": String(wait) },
      });
    }
    await next();
  };
  return handlers(contract.agents, {
    heartbeat: {
      before: [limited],
      handle: (c, { body }) => {
        const token = c.get("token");
        return heartbeat({
          deps,
          beats,
          input: { report: body, ownPort: ownPortOf(c.env) ?? deps.config.listen.port },
          by: token ? { token, bindings: auth.agents } : null,
        });
      },
    },
  });
}
