import { contract } from "@llmgw/contract";
import type { Auth } from "../auth";
import { createToken, listTokens, revokeToken } from "../auth/tokenActions";
import type { Deps } from "../deps";
import { handlers } from "./handlers";

/** Admins' tokens (the contract says who; these handlers do not check). */
export const tokenRoutes = (deps: Deps, auth: Auth) =>
  handlers(contract.tokens, {
    list: () => listTokens(deps, auth),
    create: async (c, { body }) => {
      const created = await createToken(deps, auth, { input: body, by: c.get("actor") });
      c.header("Location", `/api/v1/tokens/${encodeURIComponent(created.name)}`);
      return created;
    },
    revoke: async (c, { param }) => {
      await revokeToken(deps, auth, { name: param.name, by: c.get("actor") });
      return null;
    },
  });
