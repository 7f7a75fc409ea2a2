import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { type Config, loadConfig, type RunningServer, startServer } from "@llmgw/api";

export const serveOptions = {
  config: { type: "string" },
  "data-dir": { type: "string" },
  listen: { type: "string" },
} as const;

export function configFrom(args: string[]): Config {
  const { values } = parseArgs({ args, options: serveOptions, strict: true });
  return loadConfig({ config: values.config, dataDir: values["data-dir"], listen: values.listen });
}

const webRoot = fileURLToPath(new URL("../../web", import.meta.url));
const webDist = `${webRoot}/dist`;

/** The dashboard is built once, on the first serve of a checkout (or after `pnpm build`). */
export function ensureDashboard(log: (line: string) => void = console.log): string | null {
  if (existsSync(`${webDist}/index.html`)) return webDist;
  const vite = `${webRoot}/node_modules/vite/bin/vite.js`;
  if (!existsSync(vite) || !existsSync(`${webRoot}/index.html`)) return null;
  log("llmgw: building the dashboard (first run)…");
  execFileSync(process.execPath, [vite, "build", "--logLevel", "warn"], { cwd: webRoot, stdio: "inherit" });
  return existsSync(`${webDist}/index.html`) ? webDist : null;
}

export function stopOnSignals(server: RunningServer): void {
  const stop = () => {
    server.close().finally(() => process.exit(0));
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
}

export async function serve(args: string[]): Promise<void> {
  const config = configFrom(args);
  const server = await startServer(config, { webDist: ensureDashboard() });
  stopOnSignals(server);
}
