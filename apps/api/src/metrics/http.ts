import type { MiddlewareHandler } from "hono";
import { routePath } from "hono/route";
import { Counter, Histogram, type Registry } from "prom-client";

/** The API answers in milliseconds; a second or more is a problem worth its own bucket. */
const HTTP_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/**
 * HTTP timings by method and route pattern (not raw path: model names would explode the series).
 * `llmgw_http_request_seconds` is a histogram: its `_sum` is the series the hand-written page had
 * (same name, labels and value), its buckets are new; `llmgw_http_requests_total` stays as it was.
 */
export class HttpTimings {
  readonly #requests: Counter<"method" | "route" | "status">;
  readonly #seconds: Histogram<"method" | "route" | "status">;

  constructor(registry: Registry) {
    const labelNames = ["method", "route", "status"] as const;
    this.#requests = new Counter({
      name: "llmgw_http_requests_total",
      help: "HTTP requests answered.",
      labelNames,
      registers: [registry],
    });
    this.#seconds = new Histogram({
      name: "llmgw_http_request_seconds",
      help: "Time spent answering.",
      labelNames,
      buckets: HTTP_BUCKETS,
      registers: [registry],
    });
  }

  middleware(): MiddlewareHandler {
    return async (c, next) => {
      const start = performance.now();
      await next();
      const labels = { method: c.req.method, route: routePath(c), status: String(c.res.status) };
      this.#requests.inc(labels);
      this.#seconds.observe(labels, (performance.now() - start) / 1000);
    };
  }
}
