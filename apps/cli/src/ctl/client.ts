import { ApiFailure, answer, connect as connectClient, sent } from "@llmgw/client";
import type { ClientRequestOptions } from "hono/client";

/**
 * `llmgw ctl`'s door to the API: the one typed client, as the dashboard uses it, so a path or body
 * that drifts from the server fails the type check here. Every failure becomes a `CtlError`
 * carrying the exit code the command ends with.
 */

export type CtlFetch = NonNullable<ClientRequestOptions["fetch"]>;

/** 1: the server refused; 2: the command line is wrong; 3: the server could not be reached. */
export type ExitCode = 1 | 2 | 3;

export class CtlError extends Error {
  override readonly name = "CtlError";
  readonly exitCode: ExitCode;
  /** HTTP status of a refusal; 0 when there was no answer. */
  readonly status: number;
  readonly code: string | null;
  /** Per-field messages of a 400, by dotted path into the request body. */
  readonly fields: Record<string, string>;
  /** Lines printed under the message: field errors, what changed meanwhile. */
  readonly details: string[];
  /** The whole parsed error body, for refusals that carry more (a 412's changedSince). */
  readonly body: unknown;

  constructor(init: {
    exitCode: ExitCode;
    message: string;
    status?: number;
    code?: string | null;
    fields?: Record<string, string>;
    details?: string[];
    body?: unknown;
  }) {
    super(init.message);
    this.exitCode = init.exitCode;
    this.status = init.status ?? 0;
    this.code = init.code ?? null;
    this.fields = init.fields ?? {};
    this.details = init.details ?? Object.entries(this.fields).map(([field, why]) => `${field}: ${why}`);
    this.body = init.body ?? null;
  }
}

export type Connection = { server: string; token: string | null; fetch?: CtlFetch | undefined };

/**
 * The typed client (`@llmgw/client`) for one server, with `answer` and `sent` that end a command on
 * a failure: a refusal is exit 1 with the API's message and fields, no answer is exit 3.
 */
export function connect({ server, token, fetch }: Connection) {
  const { api } = connectClient({ server, token, ...(fetch ? { fetch } : {}) });
  const failed = (err: unknown): never => {
    if (!(err instanceof ApiFailure)) throw err;
    if (err.code === "network") {
      throw new CtlError({
        exitCode: 3,
        message: `cannot reach the llmgw server at ${server} (${causeOf(err.cause)}); is it running? Point --server or LLMGW_SERVER at it`,
      });
    }
    if (err.code === "not_json") {
      throw new CtlError({
        exitCode: 1,
        status: err.status,
        message: `${server} answered ${err.status} with something that is not JSON; is it an llmgw server?`,
      });
    }
    const { status, code, message, fields, body } = err;
    throw new CtlError({ exitCode: 1, status, code, message, fields, body });
  };
  return {
    api,
    answer: <T>(pending: Parameters<typeof answer<T>>[0]): Promise<T> => answer(pending).catch(failed),
    sent: <R extends Response>(pending: Promise<R>): Promise<R> => sent(pending).catch(failed),
  };
}

export type Server = ReturnType<typeof connect>;

/** Node's fetch hides the reason in `cause` (ECONNREFUSED, ENOTFOUND…). */
function causeOf(err: unknown): string {
  if (err instanceof Error) {
    const cause: unknown = err.cause;
    if (isRecord(cause) && typeof cause.code === "string") return cause.code;
    if (cause instanceof Error) return cause.message;
    return err.message;
  }
  return String(err);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
