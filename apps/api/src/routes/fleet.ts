import { capacityByClass, heartbeatSchema } from "@llmgw/domain";
import { Hono, type MiddlewareHandler } from "hono";
import type { Auth } from "../auth";
import { sendBody } from "../body";
import type { Deps } from "../deps";
import type { AppEnv } from "../env";
import { AppError, notFound } from "../errors";
import { commit } from "../services/commit";
import { forgetNode } from "../services/forgetNode";
import { heartbeat } from "../services/heartbeat";
import { jsonBody } from "../validate";

export function fleetRoutes(deps: Deps) {
  const setState = (state: "ready" | "draining") => async (name: string, by: string) => {
    const snap = await deps.world.snapshot();
    const node = snap.nodesByName.get(name);
    if (!node) throw notFound(`a node called ${name}`);
    const at = deps.now().toISOString();
    return commit(deps, async (tx) => {
      const stored = await tx.nodes.upsert({ ...deps.world.live(node), state });
      await tx.audit.append([
        {
          at,
          by,
          action: state === "draining" ? "drain" : "resume",
          target: name,
          field: "state",
          before: node.state,
          after: state,
        },
      ]);
      const view = deps.world.nodeView(snap, stored);
      return { result: view, events: [{ type: "node.changed", data: view }] };
    });
  };
  const drain = setState("draining");
  const resume = setState("ready");
  return new Hono<AppEnv>()
    .get("/nodes", async (c) => {
      const snap = await deps.world.snapshot();
      return c.json(snap.nodes.map((n) => deps.world.nodeView(snap, n)));
    })
    .get("/replicas", async (c) => c.json((await deps.world.snapshot()).replicas))
    .post("/nodes/:name/drain", async (c) => c.json(await drain(c.req.param("name"), c.get("actor"))))
    .post("/nodes/:name/resume", async (c) => c.json(await resume(c.req.param("name"), c.get("actor"))))
    .delete("/nodes/:name", async (c) => {
      await forgetNode({ deps, input: { name: c.req.param("name") }, by: c.get("actor") });
      return c.body(null, 204);
    });
}

export function agentRoutes(deps: Deps, auth: Auth) {
  /** Before the body is read: a flood of beats costs the server no parsing. */
  const limited: MiddlewareHandler<AppEnv> = async (c, next) => {
    const token = c.get("token");
    const wait = token ? auth.heartbeats.take(token.name, deps.now().getTime()) : 0;
    if (wait > 0) {
      throw new AppError(
        429,
        "rate_limited",
        `more than ${auth.heartbeats.attempts} heartbeats in 10 s from ${token?.name}; try again in ${wait} s`,
        undefined,
        undefined,
        { "Retry-After": String(wait) },
      );
    }
    await next();
  };
  return new Hono<AppEnv>().post("/heartbeat", limited, jsonBody(heartbeatSchema), async (c) => {
    const token = c.get("token");
    const by = token ? { token, bindings: auth.agents } : null;
    return c.json(await heartbeat({ deps, report: c.req.valid("json"), by }));
  });
}

export function capacityRoutes(deps: Deps) {
  return new Hono<AppEnv>()
    .get("/capacity", async (c) => c.json(capacityByClass((await deps.world.snapshot()).index)))
    .get("/classes", async (c) => c.json((await deps.world.snapshot()).classes))
    .get("/headroom", async (c) => sendBody(c, (await deps.world.snapshot()).headroomBody));
}
