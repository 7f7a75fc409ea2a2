import { z } from "zod";
import { route } from "./route";

/** `GET /healthz`: whether the store answers. */
export const healthSchema = z.object({
  ok: z.boolean(),
  store: z.string(),
  error: z.string().optional(),
});

/** The stream of changes, the API's description, and the server's own health and figures. */
export const meta = {
  events: route({
    method: "GET",
    path: "/api/v1/events",
    need: "viewer",
    summary:
      "Server-Sent Events: every change as it is committed; Last-Event-ID (or ?lastEventId=) replays what was missed",
    // Read by the stream itself: a reconnecting EventSource adds nothing else, and nothing is refused.
    query: z.object({ lastEventId: z.string().optional() }),
    checkedByHandler: true,
    headers: [{ name: "Last-Event-ID", required: false, description: "the id of the last event seen" }],
    ok: { status: 200, description: "the stream", media: "text/event-stream" },
    refusals: [],
  }),
  openapi: route({
    method: "GET",
    path: "/api/v1/openapi.json",
    need: "viewer",
    summary: "this document",
    ok: { status: 200, description: "the API's description", schema: z.record(z.string(), z.unknown()) },
    refusals: [],
  }),
  notFound: route({
    method: "ALL",
    path: "/api/*",
    need: "viewer",
    summary: "no such endpoint",
    ok: { status: 200, description: "never: a 404" },
    refusals: [404],
    fallback: true,
  }),
  health: route({
    method: "GET",
    path: "/healthz",
    need: "public",
    summary: "whether the server and its store answer (503 when the store does not)",
    ok: { status: 200, description: "healthy", schema: healthSchema },
    refusals: [503],
    root: true,
  }),
  metrics: route({
    method: "GET",
    path: "/metrics",
    need: "viewer",
    summary: "Prometheus figures: requests, the request path, the scheduler",
    ok: { status: 200, description: "the Prometheus text format", media: "text/plain" },
    refusals: [],
    root: true,
  }),
  dashboard: route({
    method: "GET",
    path: "/*",
    need: "public",
    summary: "the dashboard: its files, and its page for every other path (when it is built)",
    ok: { status: 200, description: "the page", media: "text/html" },
    refusals: [404],
    root: true,
  }),
} as const;
