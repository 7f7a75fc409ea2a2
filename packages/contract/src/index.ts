// @llmgw/contract: every route of the HTTP surface as data, the access table derived from it, and
// the token rules and shapes its routes take. Browser-safe: domain and zod only.
export * from "./access";
export * from "./contract";
export * from "./media";
export * from "./tokenRules";
export * from "./tokenSchemas";
