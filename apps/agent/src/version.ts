import agentPackage from "../package.json" with { type: "json" };

/**
 * llmgw's version, as its agents report it (`agentVersion`) and its server hands them out
 * (`/install/agent.mjs`): the agent package's `version`, read at build time, so a bundle that
 * carries no package.json says the same as a checkout.
 */
export const AGENT_VERSION: string = agentPackage.version;
