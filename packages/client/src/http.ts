import { type ErrorCode, refusalOf } from "@llmgw/domain";
import { type ClientRequestOptions, type ClientResponse, hc } from "hono/client";
import type { AppType } from "./appType";

/**
 * A refused request (or one that got no answer): the API's status, error code and per-field
 * messages, and the whole body for refusals that carry more (a 412's current model).
 */
export class ApiFailure extends Error {
  override readonly name = "ApiFailure";
  constructor(
    /** HTTP status; 0 when the request never got an answer. */
    readonly status: number,
    /** The API's code; `network` when nothing answered, `not_json` when a 2xx was not JSON. */
    readonly code: ErrorCode | "network" | "not_json",
    message: string,
    /** Dotted paths into the request body (`profiles.0.minMemoryGB`) and what is wrong there. */
    readonly fields: Record<string, string> = {},
    readonly body: unknown = null,
    /** Why nothing answered (ECONNREFUSED…), for a message that names it. */
    override readonly cause?: unknown,
  ) {
    super(message);
  }
}

export type ConnectOptions = {
  /** The server's origin (`http://gw:8080`); empty for the page's own. */
  server: string;
  /** A bearer token; the dashboard has none (its session cookie goes along). */
  token?: string | null;
  fetch?: ClientRequestOptions["fetch"];
  /** Headers every request carries (the dashboard's X-Requested-With). */
  headers?: Record<string, string>;
  init?: RequestInit;
};

/** A path parameter as Hono's client needs it: it puts `param` values into the URL as given. */
export const segment = encodeURIComponent;

/** A response to await: Hono's client answer for one route of the contract. */
type Pending<T> = Promise<ClientResponse<T, number, "json" | "body">>;

/**
 * The one typed client of the API: Hono's `hc` over the contract's /api/v1 (`api.models[":name"].$get`),
 * and `answer`, which resolves to the body the contract promises or throws an `ApiFailure`. The
 * dashboard, `llmgw ctl`, the agent, e2e and the benches call the API through it, so a path,
 * parameter or body that drifts from the server fails their type check.
 */
export function connect(options: ConnectOptions) {
  const api = hc<AppType>(`${options.server.replace(/\/+$/, "")}/api/v1`, {
    ...(options.fetch ? { fetch: options.fetch } : {}),
    ...(options.init ? { init: options.init } : {}),
    headers: {
      ...options.headers,
      ...(options.token ? { Authorization: `Bearer ${options.token}` } : {}),
    },
  });
  return { api, answer, sent };
}

export type Connection = ReturnType<typeof connect>;

/** The response when it is a success; its refusal, or the lack of an answer, thrown as `ApiFailure`. */
export async function sent<R extends Response | ClientResponse<unknown, number, "json" | "body">>(
  pending: Promise<R>,
): Promise<R> {
  let response: R;
  try {
    response = await pending;
  } catch (err) {
    if (err instanceof DOMException && (err.name === "AbortError" || err.name === "TimeoutError")) throw err;
    throw new ApiFailure(0, "network", "the control plane did not answer; is it running?", {}, null, err);
  }
  if (!response.ok) {
    const { status, code, message, fields, body } = refusalOf(
      response.status,
      await response.text().catch(() => ""),
    );
    throw new ApiFailure(status, (code ?? "internal") as ErrorCode, message, fields, body);
  }
  return response;
}

/** The body of a successful answer, as the contract types it. */
export async function answer<T>(pending: Pending<T>): Promise<T> {
  const response = await sent(pending);
  if (response.status === 204) return undefined as T;
  try {
    return (await response.json()) as T;
  } catch (err) {
    throw new ApiFailure(
      response.status,
      "not_json",
      `the answer (${response.status}) is not JSON`,
      {},
      null,
      err,
    );
  }
}
