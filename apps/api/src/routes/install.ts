import { contract } from "@llmgw/contract";
import type { Context } from "hono";
import type { Auth } from "../auth";
import { matches } from "../body";
import type { Deps } from "../deps";
import { AppError } from "../errors";
import { AgentFile, type AgentSource } from "../install/agentFile";
import { installScript, plainServerUrl } from "../install/script";
import { handlers } from "./handlers";

/**
 * How a node joins (SPEC §5): `/install.sh` and `/install/agent.mjs`, public, and the facts the
 * dashboard builds the line from. The agent is built once per start (`source.build`, by `llmgw
 * serve`): the file handed out is the agent of this very server.
 */
export function installRoutes(deps: Deps, auth: Auth, source: AgentSource | null) {
  let file: Promise<AgentFile> | null = null;
  const agentFile = (): Promise<AgentFile> => {
    if (!source) {
      return Promise.reject(
        new AppError({
          code: "not_found",
          message: "this server hands out no agent: it was started without one",
        }),
      );
    }
    file ??= source.build().then(
      (build) => new AgentFile(build),
      (err: unknown) => {
        // The next request tries again: a failed build may have been a passing trouble.
        file = null;
        // Logged by the source (llmgw serve's says so once per failed build), not again here.
        const why = err instanceof Error ? err.message.split("\n")[0] : String(err);
        throw new AppError({
          status: 503,
          code: "internal",
          message: `the agent could not be built: ${why}`,
        });
      },
    );
    return file;
  };

  /** The address nodes reach this server at: mirror.baseUrl when the file sets it, else this request's. */
  const serverOf = (c: Context): { server: string; serverFrom: "mirror.baseUrl" | "request" } => {
    const { mirror } = deps.config;
    if (mirror.baseUrlSet)
      return { server: mirror.baseUrl.replace(/\/+$/, ""), serverFrom: "mirror.baseUrl" };
    return { server: new URL(c.req.url).origin, serverFrom: "request" };
  };

  return handlers(contract.install, {
    info: async (c) => {
      const found = await agentFile().catch(() => null);
      return {
        version: source?.version ?? null,
        ...serverOf(c),
        agent: found ? { bytes: found.bytes.length, sha256: found.sha256 } : null,
      };
    },
    script: async (c) => {
      const found = await agentFile();
      const { server, serverFrom } = serverOf(c);
      if (!plainServerUrl(server)) {
        throw serverFrom === "request"
          ? new AppError({
              code: "bad_request",
              message: "the request's Host is not a plain host name and port",
            })
          : new AppError({
              status: 503,
              code: "internal",
              // A public answer (SPEC §5): it names the key, never the configured value.
              message:
                "mirror.baseUrl in the server's llmgw.yaml cannot be written into a shell script: the operator must give a plain http(s) URL",
            });
      }
      const script = installScript({
        server,
        serverFrom,
        version: found.version,
        sha256: found.sha256,
        tokensRequired: await auth.tokens.required(),
      });
      // Written for this request (its host, the tokens' state): a cache must not hand it to another.
      return c.body(script, 200, {
        "Content-Type": "text/plain; charset=utf-8",
        "Cache-Control": "no-store",
      });
    },
    agent: async (c) => {
      const found = await agentFile();
      c.header("ETag", found.etag);
      c.header("Cache-Control", "no-cache");
      c.header("Vary", "Accept-Encoding");
      if (matches(c.req.header("if-none-match"), found.etag)) return c.body(null, 304);
      c.header("Content-Type", "text/javascript; charset=utf-8");
      if (/\bgzip\b/.test(c.req.header("accept-encoding") ?? "")) {
        c.header("Content-Encoding", "gzip");
        return c.body(found.gzip as Uint8Array<ArrayBuffer>, 200);
      }
      return c.body(found.bytes as Uint8Array<ArrayBuffer>, 200);
    },
  });
}
