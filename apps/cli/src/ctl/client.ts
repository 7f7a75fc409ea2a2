import type { AppType, CreatedToken, TokenCreate, TokenView } from "@llmgw/api";
import type {
  AuditEntry,
  Headroom,
  MirrorEntry,
  ModelPatch,
  ModelView,
  NodeView,
  Quota,
  QuotaUsage,
  TargetResult,
} from "@llmgw/domain";
import { refusalOf } from "@llmgw/domain";
import { type ClientRequestOptions, type ClientResponse, hc } from "hono/client";

/**
 * `llmgw ctl`'s one door to the API: Hono's typed client over the API's own route types, as the
 * dashboard's `lib/api.ts` uses it, so a path or body that drifts from the server fails the type
 * check here. Every failure becomes a `CtlError` carrying the exit code the command ends with.
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

type QuotaLimits = Omit<Quota, "owner">;

// Hono's client puts path parameters in as they are given.
const segment = encodeURIComponent;

export function connect({ server, token, fetch }: Connection) {
  const client = hc<AppType>(`${server.replace(/\/+$/, "")}/api/v1`, {
    ...(fetch ? { fetch } : {}),
    headers: token ? { Authorization: `Bearer ${token}` } : {},
  });

  async function sent<R extends ClientResponse<unknown, number, "json" | "body">>(
    pending: Promise<R>,
  ): Promise<R> {
    let response: R;
    try {
      response = await pending;
    } catch (err) {
      throw new CtlError({
        exitCode: 3,
        message: `cannot reach the llmgw server at ${server} (${causeOf(err)}); is it running? Point --server or LLMGW_SERVER at it`,
      });
    }
    if (!response.ok) throw await refusal(response);
    return response;
  }

  async function answer<T>(pending: Promise<ClientResponse<T, number, "json">>): Promise<T> {
    const response = await sent(pending);
    try {
      return (await response.json()) as T;
    } catch {
      throw new CtlError({
        exitCode: 1,
        status: response.status,
        message: `${server} answered ${response.status} with something that is not JSON; is it an llmgw server?`,
      });
    }
  }

  return {
    listModels: (): Promise<ModelView[]> => answer(client.models.$get()),
    getModel: (name: string): Promise<ModelView> =>
      answer(client.models[":name"].$get({ param: { name: segment(name) } })),
    /** The model and its ETag, for a patch that must apply only to what was read. */
    async getModelForEdit(name: string): Promise<{ model: ModelView; etag: string }> {
      const response = await sent(client.models[":name"].$get({ param: { name: segment(name) } }));
      const model = (await response.json()) as ModelView;
      return { model, etag: response.headers.get("etag") ?? `"${model.version}"` };
    },
    patchModel: (name: string, patch: ModelPatch, etag: string): Promise<ModelView> =>
      answer(
        client.models[":name"].$patch(
          { param: { name: segment(name) }, json: patch },
          { headers: { "If-Match": etag } },
        ),
      ),
    target: (name: string, replicas: number, dryRun: boolean): Promise<TargetResult> =>
      answer(
        client.models[":name"].target.$post({ param: { name: segment(name) }, json: { replicas, dryRun } }),
      ),
    listHeadroom: (): Promise<Headroom[]> => answer(client.headroom.$get()),
    getHeadroom: (name: string): Promise<Headroom> =>
      answer(client.models[":name"].headroom.$get({ param: { name: segment(name) } })),
    listNodes: (): Promise<NodeView[]> => answer(client.fleet.nodes.$get()),
    drainNode: (name: string): Promise<NodeView> =>
      answer(client.fleet.nodes[":name"].drain.$post({ param: { name: segment(name) } })),
    resumeNode: (name: string): Promise<NodeView> =>
      answer(client.fleet.nodes[":name"].resume.$post({ param: { name: segment(name) } })),
    async deleteNode(name: string): Promise<void> {
      await sent(client.fleet.nodes[":name"].$delete({ param: { name: segment(name) } }));
    },
    listMirror: (): Promise<MirrorEntry[]> => answer(client.mirror.$get()),
    listQuotas: (): Promise<QuotaUsage[]> => answer(client.quotas.$get()),
    putQuota: (owner: string, limits: QuotaLimits): Promise<QuotaUsage> =>
      answer(client.quotas[":owner"].$put({ param: { owner: segment(owner) }, json: limits })),
    listTokens: (): Promise<TokenView[]> => answer(client.tokens.$get()),
    /** The answer holds the secret: the only time the server shows it. */
    createToken: (input: TokenCreate): Promise<CreatedToken> => answer(client.tokens.$post({ json: input })),
    async revokeToken(name: string): Promise<void> {
      await sent(client.tokens[":name"].$delete({ param: { name: segment(name) } }));
    },
    listAudit: (query: { model?: string; limit?: number }): Promise<AuditEntry[]> =>
      answer(
        client.audit.$get({
          query: {
            ...(query.model === undefined ? {} : { model: query.model }),
            ...(query.limit === undefined ? {} : { limit: String(query.limit) }),
          },
        }),
      ),
  };
}

export type Api = ReturnType<typeof connect>;

/** The API's one error shape (`{ error: { code, message, fields? } }`) as a refusal, exit 1. */
async function refusal(response: { status: number; text(): Promise<string> }): Promise<CtlError> {
  const { status, code, message, fields, body } = refusalOf(
    response.status,
    await response.text().catch(() => ""),
  );
  return new CtlError({ exitCode: 1, status, code, message, fields, body });
}

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
