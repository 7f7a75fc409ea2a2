import { contract } from "@llmgw/contract";

// Plain data, no React: App.tsx gives each page its component, and the browser tests import this
// list to walk every screen (e2e/tests/accessibility.spec.ts, phone.spec.ts), so a page added
// here is checked there too, or fails to type-check until it is.

/** The dashboard's pages by address, in the nav's order. */
export const PAGES = [
  { path: "/", label: "Capacity" },
  { path: "/models", label: "Models" },
  { path: "/serve", label: "Serve" },
  { path: "/fleet", label: "Fleet" },
  { path: "/mirror", label: "Mirror" },
  { path: "/quotas", label: "Quotas" },
  { path: "/usage", label: "Usage" },
  { path: "/audit", label: "Audit" },
  // In the nav only for a role that may call `endpoint` (the server's own access table).
  { path: "/tokens", label: "Tokens", endpoint: contract.tokens.list },
] as const;

export type PagePath = (typeof PAGES)[number]["path"];

/**
 * What shows that is no page of the nav: the sign-in, at any address while signed out, and
 * "Not found", at an address no page has.
 */
export const VIEWS = [
  { view: "sign-in", label: "Sign in" },
  { view: "not-found", label: "Not found" },
] as const;

export type ViewName = (typeof VIEWS)[number]["view"];
