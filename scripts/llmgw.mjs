// `pnpm llmgw <command>`: runs the CLI from a checkout, with no build step to remember. The CLI's
// TypeScript is bundled into node_modules/.cache/llmgw/ on first run and again after any of its
// files change (under a second); the dashboard is built on first `serve` if missing. Without
// esbuild, or when bundling fails, the sources run through tsx as they are.
import { pathToFileURL } from "node:url";
import { freshBundle } from "./cli-bundle.mjs";

let bundle = null;
try {
  bundle = await freshBundle();
} catch (err) {
  const reason = err instanceof Error ? err.message.split("\n")[0] : String(err);
  process.stderr.write(`llmgw: could not bundle the CLI (${reason}); running its sources through tsx\n`);
}
if (bundle) {
  // The bundle carries a source map: stack traces name the TypeScript files and lines.
  process.setSourceMapsEnabled(true);
  await import(pathToFileURL(bundle).href);
} else {
  const { register } = await import("tsx/esm/api");
  register();
  await import("../apps/cli/src/main.ts");
}
