import type { AppType, CreatedToken, SessionView, TokenCreate, TokenView } from "@llmgw/api";
import type {
  AuditEntry,
  Capacity,
  Class,
  ErrorCode,
  Headroom,
  MirrorEntry,
  ModelInput,
  ModelPatch,
  ModelView,
  NodeView,
  Quota,
  QuotaUsage,
  Replica,
  ServePlan,
} from "@llmgw/domain";
import { refusalOf } from "@llmgw/domain";
import { type ClientResponse, hc } from "hono/client";
import { sessionState } from "./session";

/**
 * The dashboard's one door to the API. Every operation is a plain function that resolves to the
 * body the contract promises or throws an `ApiFailure`; features wrap these in query options and
 * hooks, and nothing else in the app calls `fetch`. Requests go through Hono's typed client over
 * the API's own route types (`AppType`), so a path, parameter or body that drifts from the server
 * fails the type check here rather than in an operator's browser.
 */

export const API_BASE = "/api/v1";

type QuotaLimits = Omit<Quota, "owner">;

/** A refusal from the API (or the network), with the error body's code and per-field messages. */
export class ApiFailure extends Error {
  override readonly name = "ApiFailure";
  constructor(
    /** HTTP status; 0 when the request never got an answer. */
    readonly status: number,
    readonly code: ErrorCode | "network",
    message: string,
    /** Dotted paths into the request body (`profiles.0.minMemoryGB`) and what is wrong there. */
    readonly fields: Record<string, string> = {},
    /** The whole parsed body, for errors that carry more (a 412's current model). */
    readonly body: unknown = null,
  ) {
    super(message);
  }
}

// X-Requested-With tells the server a cookie-signed change comes from this page's script (a form on
// another site cannot set it), which it requires of body-less changes such as wake and drain.
const client = hc<AppType>(API_BASE, {
  init: { credentials: "same-origin" },
  headers: { "X-Requested-With": "llmgw" },
});

/** The body of a successful answer, or the API's refusal as an `ApiFailure`. */
async function answer<T>(pending: Promise<ClientResponse<T, number, "json">>): Promise<T> {
  const response = await sent(pending);
  return (await response.json()) as T;
}

/**
 * The answer, or its refusal thrown. A 401 means the session has ended (or never began): the page
 * is told, and puts the sign-in in front of it. Signing in reports its own 401 (a wrong token).
 */
async function sent<R extends Response | ClientResponse<unknown, number, "json" | "body">>(
  pending: Promise<R>,
  { signingIn = false } = {},
): Promise<R> {
  let response: R;
  try {
    response = await pending;
  } catch {
    throw new ApiFailure(0, "network", "the control plane did not answer; is it running?");
  }
  if (response.status === 401 && !signingIn) sessionState.refused();
  if (!response.ok) throw await failureOf(response);
  return response;
}

async function failureOf(response: { status: number; text(): Promise<string> }): Promise<ApiFailure> {
  const { status, code, message, fields, body } = refusalOf(
    response.status,
    await response.text().catch(() => ""),
  );
  return new ApiFailure(status, (code ?? "internal") as ErrorCode, message, fields, body);
}

// Hono's client puts path parameters in as they are given.
const segment = encodeURIComponent;

// Catalogue

export function listModels(): Promise<ModelView[]> {
  return answer(client.models.$get());
}

export function getModel(name: string): Promise<ModelView> {
  return answer(client.models[":name"].$get({ param: { name: segment(name) } }));
}

export function createModel(input: ModelInput): Promise<ModelView> {
  return answer(client.models.$post({ json: input }));
}

/** A JSON merge patch of the card's fields, applied only if the model is still at `version`. */
export function patchModel(name: string, patch: ModelPatch, version: number): Promise<ModelView> {
  return answer(
    client.models[":name"].$patch(
      { param: { name: segment(name) }, json: patch },
      { headers: { "If-Match": `"${version}"` } },
    ),
  );
}

export async function deleteModel(name: string): Promise<void> {
  await sent(client.models[":name"].$delete({ param: { name: segment(name) } }));
}

// Capacity

export function listHeadroom(): Promise<Headroom[]> {
  return answer(client.headroom.$get());
}

export function getHeadroom(name: string): Promise<Headroom> {
  return answer(client.models[":name"].headroom.$get({ param: { name: segment(name) } }));
}

export function listClasses(): Promise<Class[]> {
  return answer(client.classes.$get());
}

export function getCapacity(): Promise<Capacity> {
  return answer(client.capacity.$get());
}

// Fleet

export function listNodes(): Promise<NodeView[]> {
  return answer(client.fleet.nodes.$get());
}

export function listReplicas(): Promise<Replica[]> {
  return answer(client.fleet.replicas.$get());
}

// Mirror

export function listMirror(): Promise<MirrorEntry[]> {
  return answer(client.mirror.$get());
}

export function getServePlan(model: string, version: string, ctxPool?: number): Promise<ServePlan> {
  return answer(
    client.mirror[":model"][":version"].plan.$get({
      param: { model: segment(model), version: segment(version) },
      query: ctxPool === undefined ? {} : { ctxPool: String(ctxPool) },
    }),
  );
}

// Quotas

export function listQuotas(): Promise<QuotaUsage[]> {
  return answer(client.quotas.$get());
}

export function putQuota(owner: string, limits: QuotaLimits): Promise<QuotaUsage> {
  return answer(client.quotas[":owner"].$put({ param: { owner: segment(owner) }, json: limits }));
}

// Audit

export function listAudit(model?: string): Promise<AuditEntry[]> {
  return answer(client.audit.$get({ query: model ? { model } : {} }));
}

// Tokens (admin)

export function listTokens(): Promise<TokenView[]> {
  return answer(client.tokens.$get());
}

/** The answer holds the secret: the only time the server shows it. */
export function createToken(input: TokenCreate): Promise<CreatedToken> {
  return answer(client.tokens.$post({ json: input }));
}

export async function revokeToken(name: string): Promise<void> {
  await sent(client.tokens[":name"].$delete({ param: { name: segment(name) } }));
}

// Session

/** Who this page is signed in as; on a server without tokens, `local` with tokensRequired false. */
export function getSession(): Promise<SessionView> {
  return answer(client.session.$get());
}

/** Trades a token for an httpOnly session cookie; a wrong token is a 401 here, not an expiry. */
export async function signIn(token: string): Promise<SessionView> {
  const response = await sent(client.session.$post({ json: { token } }), { signingIn: true });
  return (await response.json()) as SessionView;
}

export async function signOut(): Promise<void> {
  await sent(client.session.$delete());
}
