import { z } from "zod";
import { route } from "./route";
import {
  createdTokenSchema,
  sessionViewSchema,
  signInSchema,
  tokenCreateSchema,
  tokenViewSchema,
} from "./tokenSchemas";

/** Tokens (SPEC §4 "Tokens and roles"): admins only; a secret is shown once, at creation. */
export const tokens = {
  list: route({
    method: "GET",
    path: "/api/v1/tokens",
    need: "admin",
    summary:
      "every token's name, role, origin, an agent's node and a client's models and limits, never a secret",
    ok: { status: 200, description: "the tokens", schema: z.array(tokenViewSchema) },
    refusals: [],
  }),
  create: route({
    method: "POST",
    path: "/api/v1/tokens",
    need: "admin",
    summary: "make a token; its secret is in the answer, the only time it is shown",
    body: tokenCreateSchema,
    ok: { status: 201, description: "created", schema: createdTokenSchema },
    refusals: [400, 409, 413, 415],
  }),
  revoke: route({
    method: "DELETE",
    path: "/api/v1/tokens/:name",
    need: "admin",
    summary: "revoke a runtime token (one from llmgw.yaml is revoked there)",
    ok: { status: 204, description: "revoked" },
    refusals: [404, 409],
  }),
} as const;

/** The dashboard's sign-in: a token traded once for an httpOnly session cookie. */
export const session = {
  get: route({
    method: "GET",
    path: "/api/v1/session",
    need: "viewer",
    summary: "who this request is",
    ok: { status: 200, description: "the caller", schema: sessionViewSchema },
    refusals: [],
  }),
  signIn: route({
    method: "POST",
    path: "/api/v1/session",
    need: "public",
    summary: "sign in: sets the httpOnly session cookie",
    body: signInSchema,
    ok: { status: 200, description: "signed in", schema: sessionViewSchema },
    refusals: [400, 401, 403, 413, 415, 429],
  }),
  signOut: route({
    method: "DELETE",
    path: "/api/v1/session",
    need: "public",
    summary: "sign out",
    ok: { status: 204, description: "signed out" },
    refusals: [],
  }),
} as const;
