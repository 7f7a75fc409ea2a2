import { heartbeatReplySchema, heartbeatSchema, nodeViewSchema, replicaSchema } from "@llmgw/domain";
import { z } from "zod";
import { route } from "./route";

/** The nodes and their replicas (SPEC §3 "Fleet"). */
export const fleet = {
  nodes: route({
    method: "GET",
    path: "/api/v1/fleet/nodes",
    need: "viewer",
    summary: "every node, with what it holds and has free",
    ok: { status: 200, description: "the nodes", schema: z.array(nodeViewSchema) },
    refusals: [],
  }),
  replicas: route({
    method: "GET",
    path: "/api/v1/fleet/replicas",
    need: "viewer",
    summary: "every replica, placed or reported",
    ok: { status: 200, description: "the replicas", schema: z.array(replicaSchema) },
    refusals: [],
  }),
  drain: route({
    method: "POST",
    path: "/api/v1/fleet/nodes/:name/drain",
    need: "operator",
    summary: "place nothing new on the node; its replicas move away",
    ok: { status: 200, description: "the node, draining", schema: nodeViewSchema },
    refusals: [404],
  }),
  resume: route({
    method: "POST",
    path: "/api/v1/fleet/nodes/:name/resume",
    need: "operator",
    summary: "let the scheduler place on a drained node again",
    ok: { status: 200, description: "the node, ready", schema: nodeViewSchema },
    refusals: [404],
  }),
  forget: route({
    method: "DELETE",
    path: "/api/v1/fleet/nodes/:name",
    need: "operator",
    summary: "forget a down node and its replicas (409 for a live one)",
    ok: { status: 204, description: "forgotten" },
    refusals: [404, 409],
  }),
} as const;

/** What agents call: their node's report (SPEC §3 "Agents"). */
export const agents = {
  heartbeat: route({
    method: "POST",
    path: "/api/v1/agents/heartbeat",
    need: "agent",
    summary:
      "an agent's report of its node; the token is bound to one node (403 for another), a replica id another node holds is 409",
    body: heartbeatSchema,
    ok: { status: 200, description: "what the node should run", schema: heartbeatReplySchema },
    refusals: [400, 409, 413, 415, 429],
  }),
} as const;
