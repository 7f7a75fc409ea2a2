import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { AGENT_VERSION } from "@llmgw/agent";
import { agentBundle } from "@llmgw/agent/bundle";
import {
  type AgentBuild,
  type AgentSource,
  guardProcess,
  type Logger,
  loadConfig,
  type RunningServer,
  startServer,
} from "@llmgw/api";
import { LOG_USAGE, loggerFrom, logOptions } from "@llmgw/log";

const SERVE_USAGE = `llmgw serve [--config F] [--data-dir D] [--listen HOST:PORT]

  The API, the dashboard and the OpenAI-compatible gateway on one port.

  --config F            llmgw.yaml (or LLMGW_CONFIG); none is fine
  --data-dir D          the embedded store and the default mirror, created when missing
                        (or LLMGW_DATA_DIR; default ./data)
  --listen HOST:PORT    where to answer (or LLMGW_LISTEN; default 127.0.0.1:8080)
${LOG_USAGE}`;

const serveOptions = {
  config: { type: "string" },
  "data-dir": { type: "string" },
  listen: { type: "string" },
  help: { type: "boolean", short: "h" },
  ...logOptions,
} as const;

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

/**
 * The one-file agent this server hands out at /install/agent.mjs (SPEC §5): built from this
 * checkout's sources, in the background from the start (a cached one is found in milliseconds, a
 * new one takes under a second), so the first /install request waits for it and the start does not.
 */
export function agentSource(log: Logger): AgentSource {
  let building: Promise<AgentBuild> | null = null;
  const build = () => {
    building ??= agentBundle().then(
      (bundle) => {
        if (bundle.builtNow)
          log.info({ bytes: bundle.bytes.length }, `built the agent's bundle ${bundle.path}`);
        return bundle;
      },
      (err: unknown) => {
        building = null;
        log.warn(
          { err },
          "building the agent's bundle failed; /install/agent.mjs answers 503 until it works",
        );
        throw err;
      },
    );
    return building;
  };
  build().catch(() => undefined);
  return { version: AGENT_VERSION, build };
}

export function stopOnSignals(server: RunningServer): void {
  const stop = () => {
    server.close().finally(() => process.exit(0));
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
}

export async function serve(args: string[]): Promise<void> {
  const { values } = parseArgs({ args, options: serveOptions, strict: true });
  if (values.help) {
    process.stdout.write(SERVE_USAGE);
    return;
  }
  const log = loggerFrom(values);
  guardProcess(log);
  const config = loadConfig({ config: values.config, dataDir: values["data-dir"], listen: values.listen });
  const server = await startServer(config, { webDist: ensureDashboard(log), log, agent: agentSource(log) });
  stopOnSignals(server);
}
