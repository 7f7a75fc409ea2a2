import { joinInfoSchema } from "@llmgw/domain";
import { route } from "./route";

/**
 * How a node joins (SPEC §5 "Joining a node takes one line"): the install script and the one-file
 * agent it downloads, both public (a new machine holds no token of the dashboard's), and what the
 * dashboard builds the line from.
 */
export const install = {
  info: route({
    method: "GET",
    path: "/api/v1/install",
    need: "viewer",
    summary:
      "how a node joins: this server's version (a node whose agentVersion differs runs another), the address install.sh names, the agent's size",
    ok: { status: 200, description: "the install's facts", schema: joinInfoSchema },
    refusals: [],
  }),
  script: route({
    method: "GET",
    path: "/install.sh",
    need: "public",
    summary:
      "a POSIX sh script with this server's address written in: curl -fsSL <server>/install.sh | sh -s -- --token T [--name N] [--prefix DIR] [--no-service]",
    ok: { status: 200, description: "the script", media: "text/plain" },
    refusals: [400, 404, 503],
    root: true,
  }),
  agent: route({
    method: "GET",
    path: "/install/agent.mjs",
    need: "public",
    summary:
      "the agent of this server's version as one ES module (Node >= 20, nothing else); ETag, and 304 for If-None-Match",
    headers: [{ name: "If-None-Match", required: false, description: "the ETag of the copy held" }],
    ok: { status: 200, description: "the agent", media: "text/javascript" },
    refusals: [404, 503],
    root: true,
  }),
} as const;
