// `pnpm llmgw <command>`: runs the CLI from a checkout. TypeScript is loaded through tsx, so a
// checkout needs no build step for the server; the dashboard is built on first `serve` if missing.
import { register } from "tsx/esm/api";

register();
await import("../apps/cli/src/main.ts");
