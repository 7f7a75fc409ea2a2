import { capacityByClass, heartbeatSchema } from "@llmgw/domain";
import { Hono } from "hono";
import { sendBody } from "../body";
import type { Deps } from "../deps";
import type { AppEnv } from "../env";
import { notFound } from "../errors";
import { commit } from "../services/commit";
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
    .post("/nodes/:name/resume", async (c) => c.json(await resume(c.req.param("name"), c.get("actor"))));
}

export function agentRoutes(deps: Deps) {
  return new Hono<AppEnv>().post("/heartbeat", jsonBody(heartbeatSchema), async (c) =>
    c.json(await heartbeat({ deps, report: c.req.valid("json") })),
  );
}

export function capacityRoutes(deps: Deps) {
  return new Hono<AppEnv>()
    .get("/capacity", async (c) => c.json(capacityByClass((await deps.world.snapshot()).index)))
    .get("/classes", async (c) => c.json((await deps.world.snapshot()).classes))
    .get("/headroom", async (c) => sendBody(c, (await deps.world.snapshot()).headroomBody));
}
