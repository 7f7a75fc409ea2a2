import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { type Config, type Logger, loadConfig, type RunningServer, startServer } from "@llmgw/api";
import { loggerFrom, logOptions } from "@llmgw/client/log";

export const serveOptions = {
  config: { type: "string" },
  "data-dir": { type: "string" },
  listen: { type: "string" },
  ...logOptions,
} as const;

export function configFrom(args: string[]): { config: Config; log: Logger } {
  const { values } = parseArgs({ args, options: serveOptions, strict: true });
  const log = loggerFrom(values);
  return {
    config: loadConfig({ config: values.config, dataDir: values["data-dir"], listen: values.listen }),
    log,
  };
}

const webRoot = fileURLToPath(new URL("../../web", import.meta.url));
const webDist = `${webRoot}/dist`;

/** The dashboard is built once, on the first serve of a checkout (or after `pnpm build`). */
export function ensureDashboard(log: Logger): string | null {
  if (existsSync(`${webDist}/index.html`)) return webDist;
  const vite = `${webRoot}/node_modules/vite/bin/vite.js`;
  if (!existsSync(vite) || !existsSync(`${webRoot}/index.html`)) return null;
  log.info("building the dashboard (first run)…");
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
  const { config, log } = configFrom(args);
  const server = await startServer(config, { webDist: ensureDashboard(log), log });
  stopOnSignals(server);
}
