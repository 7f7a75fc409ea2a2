import type { BenchSend } from "@llmgw/client/bench";
import { Hono } from "hono";
import type { AppEnv } from "../env";
import { respondGatewayError } from "./errors";
import type { Gateway } from "./gateway";

/**
 * The request path in process, as the dashboard's bench sends to it (SPEC §5): the same
 * `Gateway.handle` every /v1 chat completion goes through — admission, waiting, waking, proxying,
 * the meter — entered past the authorization middleware, since the operator who asked for the
 * bench was authorized on `POST /models/:name/bench`. Its requests count as `by`'s.
 */
export function inProcessSend(gateway: Gateway, by: string): BenchSend {
  const path = new Hono<AppEnv>();
  path.onError((err, c) => respondGatewayError(err, c));
  path.post("/v1/chat/completions", (c) => {
    c.set("actor", by);
    c.set("token", null);
    return gateway.handle(c);
  });
  return async (body, signal) =>
    path.request("http://localhost/v1/chat/completions", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body,
      signal,
    });
}
