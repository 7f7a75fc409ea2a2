import { text } from "@llmgw/domain";
import { z } from "zod";
import { onlyAgentsHaveNodes, type Role, roleSchema, tokenNameSchema, tokenNodeSchema } from "../config";
import type { Principal } from "./principal";
import { MAX_SECRET_LENGTH } from "./secrets";

/** `POST /tokens`: the secret is made by the server, never chosen by the client. */
export const tokenCreateSchema = z
  .strictObject({ name: tokenNameSchema, role: roleSchema, node: tokenNodeSchema.optional() })
  .refine(onlyAgentsHaveNodes, { message: "only an agent token is bound to a node", path: ["node"] });
export type TokenCreate = z.infer<typeof tokenCreateSchema>;

/** `POST /session`: the token pasted into the sign-in page. */
export const signInSchema = z.strictObject({
  token: text().min(1, "paste a token").max(MAX_SECRET_LENGTH, "longer than any llmgw token"),
});

/** A token as `GET /tokens` shows it: never its secret, never its hash. */
export type TokenView = {
  name: string;
  role: Role;
  /** "config": declared in llmgw.yaml (revoke it there); "runtime": created through the API. */
  origin: "config" | "runtime";
  createdAt: string | null;
  createdBy: string | null;
  lastUsedAt: string | null;
  /** An agent token's node: the one it was made for, else the one its first heartbeat bound; null for other roles. */
  node: string | null;
};

/** `POST /tokens`'s answer: the only time the secret is shown. */
export type CreatedToken = TokenView & { token: string };

/** `GET /session` and a sign-in's answer. */
export type SessionView = {
  name: string;
  role: Role;
  via: Principal["via"];
  /** False on a server without tokens: everyone on loopback is `local`, an admin. */
  tokensRequired: boolean;
};
