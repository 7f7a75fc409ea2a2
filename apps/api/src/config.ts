import { readFileSync } from "node:fs";
import { isAbsolute, join, resolve } from "node:path";
import { fieldsOfItsRole, tokenFields } from "@llmgw/contract";
import {
  classSchema,
  DEFAULT_DRAIN_SECONDS,
  DEFAULT_SCALE_DOWN_SECONDS,
  modelInputSchema,
  quotaSchema,
  type RolloutSettings,
  rolloutSettingsSchema,
  text,
} from "@llmgw/domain";
import { isNode, LineCounter, parseDocument } from "yaml";
import { z } from "zod";
import { DEFAULT_HUB_IDLE_SECONDS, DEFAULT_HUB_TIMEOUT_SECONDS } from "./huggingFace/bounds";

// SPEC §4: every key optional; a wrong file stops start-up naming the file, the path inside it
// and the problem. The same schema checks the file and the flags/environment that override it.

const hostPort = text().regex(
  /^(\[[0-9a-fA-F:]+\]|[A-Za-z0-9.-]+):\d{1,5}$/,
  "expected HOST:PORT, for example 127.0.0.1:8080",
);

export { RESERVED_ACTORS, type Role, roleSchema, tokenNameSchema, tokenNodeSchema } from "@llmgw/contract";

export const tokenConfigSchema = z
  .strictObject({
    ...tokenFields,
    // Lower-cased once here, so every later comparison is of one spelling.
    sha256: z
      .string()
      .regex(/^[0-9a-f]{64}$/i, "expected the 64 hex digits of the token's SHA-256")
      .transform((hex) => hex.toLowerCase()),
  })
  .superRefine(fieldsOfItsRole);

/** Idle time after which a browser session ends, unless the file or LLMGW_SESSION_TTL_SECONDS says. */
export const DEFAULT_SESSION_TTL_SECONDS = 12 * 60 * 60;
const sessionTtl = z
  .int()
  .min(1)
  .max(30 * 24 * 60 * 60);

export const configFileSchema = z.strictObject({
  listen: hostPort.optional(),
  dataDir: text().min(1).optional(),
  mirror: z
    .strictObject({
      dir: text().min(1).optional(),
      // SPEC §5: install.sh and the agents' sources are public answers; a URL with a user and
      // password in it would hand them out. The message names the key and never echoes the URL.
      baseUrl: z
        .string()
        .refine((url) => !hasUserInfo(url), {
          message:
            "must not hold a user name or password (user:password@): install.sh hands this address out",
          abort: true,
        })
        .pipe(text().pipe(z.url({ error: "expected an http(s) URL" })))
        .optional(),
    })
    .optional(),
  heartbeatSeconds: z.int().positive().max(3600).optional(),
  sessionTtlSeconds: sessionTtl.optional(),
  classes: z.array(classSchema.strict()).optional(),
  quotas: z.array(quotaSchema.strict()).optional(),
  tokens: z.array(tokenConfigSchema).optional(),
  models: z.array(modelInputSchema).optional(),
  // SPEC §10.1: where weights are pulled from; else HF_ENDPOINT and HF_TOKEN.
  huggingface: z
    .strictObject({
      endpoint: text()
        .pipe(z.url({ protocol: /^https?$/ }))
        .optional(),
      token: text().min(1).optional(),
      // SPEC §10.5a: each listing, resolving or header call ends after timeoutSeconds; a download
      // under 1 kB/s for idleSeconds is cut and resumed.
      timeoutSeconds: z.int("expected whole seconds").min(1).max(3600).optional(),
      idleSeconds: z.int("expected whole seconds").min(1).max(3600).optional(),
    })
    .optional(),
  gateway: z
    .strictObject({
      maxQueue: z.int().min(0).max(1_000_000).optional(),
      maxWaitSeconds: z.int().min(1).max(86_400).optional(),
      bodyLimitMB: z.int().min(1).max(1024).optional(),
      engineIdleSeconds: z.int().min(1).max(86_400).optional(),
    })
    .optional(),
  autoscale: z
    .strictObject({
      scaleDownSeconds: z.number().min(0, "must be 0 or more seconds").max(86_400).optional(),
      drainSeconds: z.number().min(0, "must be 0 or more seconds").max(86_400).optional(),
    })
    .optional(),
  /** SPEC §11.4: when a rollout is undone by itself. */
  rollout: rolloutSettingsSchema.optional(),
});
export type ConfigFile = z.infer<typeof configFileSchema>;

export type Config = {
  /** The file it came from, or null when none was given. */
  file: string | null;
  listen: { host: string; port: number };
  dataDir: string;
  /**
   * `baseUrl`: the address nodes reach this server at (mirror sources, install.sh); set says whether
   * the file gave it (else it is the listen address, and install.sh names the request's own host).
   */
  mirror: { dir: string; baseUrl: string; baseUrlSet: boolean };
  heartbeatSeconds: number;
  /** A browser session ends after this long without a request (LLMGW_SESSION_TTL_SECONDS). */
  sessionTtlSeconds: number;
  classes: ConfigFile["classes"];
  quotas: NonNullable<ConfigFile["quotas"]>;
  tokens: NonNullable<ConfigFile["tokens"]>;
  models: NonNullable<ConfigFile["models"]>;
  /** The request path's bounds (SPEC §7.4, §7.6, §7.8). */
  /**
   * The Hugging Face Hub (or a mirror of it) pulls come from, and the token for it (SPEC §10.1).
   * Its deadlines (§10.5a) are always set by loadConfig; a test may leave them to the defaults.
   */
  huggingface: { endpoint: string; token: string | null; timeoutSeconds?: number; idleSeconds?: number };
  gateway: {
    maxQueue: number;
    maxWaitSeconds: number;
    bodyLimitMB: number;
    /** An engine silent this long after its head ends the request (SPEC §7.5a). */
    engineIdleSeconds: number;
  };
  /**
   * SPEC §9.3: how long wanted replicas hold after demand falls, and the longest a replica being
   * removed waits for its requests to end.
   */
  autoscale: { scaleDownSeconds: number; drainSeconds: number };
  /** SPEC §11.4: the new revision's error ratio and time to ready that roll a rollout back. */
  rollout: RolloutSettings;
  /** LLMGW_SCHEDULER=off: replicas come only from agents' heartbeats. */
  scheduler: boolean;
  /** PostgreSQL instead of the embedded store, from DATABASE_URL. */
  databaseUrl: string | null;
};

export class ConfigError extends Error {
  override name = "ConfigError";
}

export type ConfigOverrides = {
  config?: string | undefined;
  dataDir?: string | undefined;
  listen?: string | undefined;
};

/** Flags win over the environment, which wins over the file. */
export function loadConfig(flags: ConfigOverrides = {}, env: NodeJS.ProcessEnv = process.env): Config {
  const file = flags.config ?? env.LLMGW_CONFIG ?? null;
  const parsed = file ? readConfigFile(file) : {};
  const listenText = flags.listen ?? env.LLMGW_LISTEN ?? parsed.listen ?? "127.0.0.1:8080";
  const listenCheck = hostPort.safeParse(listenText);
  if (!listenCheck.success) throw new ConfigError(`listen: "${listenText}": expected HOST:PORT`);
  const listen = splitHostPort(listenText);
  const base = file ? resolve(file, "..") : process.cwd();
  // A path typed on the command line means where the operator stands; one in the file, beside it.
  const dataDirGiven = flags.dataDir ?? env.LLMGW_DATA_DIR;
  const dataDir = dataDirGiven
    ? absolute(dataDirGiven, process.cwd())
    : absolute(parsed.dataDir ?? "./data", base);
  const mirrorDir = parsed.mirror?.dir ? absolute(parsed.mirror.dir, base) : join(dataDir, "mirror");
  const baseUrl = (parsed.mirror?.baseUrl ?? `http://${listenText}`).replace(/\/+$/, "");
  const ttlText = env.LLMGW_SESSION_TTL_SECONDS;
  const ttl = ttlText === undefined || ttlText === "" ? undefined : sessionTtl.safeParse(Number(ttlText));
  if (ttl && !ttl.success) {
    throw new ConfigError(`LLMGW_SESSION_TTL_SECONDS: "${ttlText}": expected whole seconds, 1 to 2592000`);
  }
  return {
    file,
    listen,
    dataDir,
    mirror: { dir: mirrorDir, baseUrl, baseUrlSet: parsed.mirror?.baseUrl !== undefined },
    heartbeatSeconds: parsed.heartbeatSeconds ?? 5,
    sessionTtlSeconds: ttl?.data ?? parsed.sessionTtlSeconds ?? DEFAULT_SESSION_TTL_SECONDS,
    classes: parsed.classes,
    quotas: parsed.quotas ?? [],
    tokens: parsed.tokens ?? [],
    models: parsed.models ?? [],
    gateway: {
      maxQueue: parsed.gateway?.maxQueue ?? 256,
      maxWaitSeconds: parsed.gateway?.maxWaitSeconds ?? 300,
      bodyLimitMB: parsed.gateway?.bodyLimitMB ?? 32,
      engineIdleSeconds: parsed.gateway?.engineIdleSeconds ?? 120,
    },
    autoscale: {
      scaleDownSeconds: parsed.autoscale?.scaleDownSeconds ?? DEFAULT_SCALE_DOWN_SECONDS,
      drainSeconds: parsed.autoscale?.drainSeconds ?? DEFAULT_DRAIN_SECONDS,
    },
    rollout: parsed.rollout ?? rolloutSettingsSchema.parse({}),
    huggingface: huggingfaceOf(parsed.huggingface, env),
    scheduler: env.LLMGW_SCHEDULER !== "off",
    databaseUrl: env.DATABASE_URL || null,
  };
}

export const PUBLIC_HUB = "https://huggingface.co";

/** `http://user:pw@host`: a URL that carries credentials (checked without echoing it). */
function hasUserInfo(url: string): boolean {
  try {
    const parsed = new URL(url);
    return parsed.username !== "" || parsed.password !== "";
  } catch {
    return /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*@/i.test(url);
  }
}

/** The file's `huggingface:` first, then HF_ENDPOINT / HF_TOKEN (the Hub's own tools read those). */
function huggingfaceOf(file: ConfigFile["huggingface"], env: NodeJS.ProcessEnv): Config["huggingface"] {
  const endpoint = file?.endpoint ?? (env.HF_ENDPOINT || PUBLIC_HUB);
  const check = z.url({ protocol: /^https?$/ }).safeParse(endpoint);
  if (!check.success) throw new ConfigError(`HF_ENDPOINT: "${endpoint}": expected an http(s) URL`);
  return {
    endpoint: endpoint.replace(/\/+$/, ""),
    token: file?.token ?? (env.HF_TOKEN || null),
    timeoutSeconds: file?.timeoutSeconds ?? DEFAULT_HUB_TIMEOUT_SECONDS,
    idleSeconds: file?.idleSeconds ?? DEFAULT_HUB_IDLE_SECONDS,
  };
}

export function splitHostPort(text: string): { host: string; port: number } {
  const at = text.lastIndexOf(":");
  return { host: text.slice(0, at).replace(/^\[|\]$/g, ""), port: Number(text.slice(at + 1)) };
}

function absolute(path: string, base: string): string {
  return isAbsolute(path) ? path : resolve(base, path);
}

/** Reads and checks one configuration file; every problem names the file and the path inside it. */
export function readConfigFile(file: string): ConfigFile {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (err) {
    throw new ConfigError(`${file}: cannot read it (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
  }
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false });
  const syntax = doc.errors[0];
  if (syntax) {
    const at = lines.linePos(syntax.pos[0]);
    throw new ConfigError(`${file}:${at.line}:${at.col}: not valid YAML: ${syntax.message.split("\n")[0]}`);
  }
  const result = configFileSchema.safeParse(doc.toJS() ?? {});
  if (result.success) return checkConsistency(file, result.data);
  const problems = result.error.issues.map((issue) => {
    const node = doc.getIn(issue.path, true);
    const range = isNode(node) ? node.range : undefined;
    const where = range ? `:${lines.linePos(range[0]).line}` : "";
    return `${file}${where}: ${formatPath(issue.path) || "(top level)"}: ${issue.message}`;
  });
  throw new ConfigError(problems.join("\n"));
}

/** What a schema per item cannot see: names that must be unique across the file. */
function checkConsistency(file: string, cfg: ConfigFile): ConfigFile {
  const seen = new Map<string, string>();
  for (const [i, model] of (cfg.models ?? []).entries()) {
    for (const name of [model.name, ...(model.aliases ?? [])]) {
      const first = seen.get(name);
      if (first)
        throw new ConfigError(`${file}: models[${i}]: the name "${name}" is already used by ${first}`);
      seen.set(name, `models[${i}]`);
    }
  }
  const tokenNames = new Map<string, number>();
  const tokenHashes = new Map<string, number>();
  const tokenNodes = new Map<string, number>();
  for (const [i, token] of (cfg.tokens ?? []).entries()) {
    const sameName = tokenNames.get(token.name);
    if (sameName !== undefined)
      throw new ConfigError(`${file}: tokens[${i}].name: "${token.name}" is already tokens[${sameName}]`);
    const sameHash = tokenHashes.get(token.sha256);
    if (sameHash !== undefined)
      throw new ConfigError(`${file}: tokens[${i}].sha256: the same token as tokens[${sameHash}]`);
    const sameNode = token.node === undefined ? undefined : tokenNodes.get(token.node);
    if (sameNode !== undefined)
      throw new ConfigError(
        `${file}: tokens[${i}].node: "${token.node}" is already tokens[${sameNode}]'s node`,
      );
    tokenNames.set(token.name, i);
    tokenHashes.set(token.sha256, i);
    if (token.node !== undefined) tokenNodes.set(token.node, i);
  }
  const classNames = new Set((cfg.classes ?? defaultClassNames).map((c) => c.name));
  for (const [i, model] of (cfg.models ?? []).entries()) {
    const cls = model.class ?? "standard";
    if (!classNames.has(cls)) throw new ConfigError(`${file}: models[${i}].class: no class called "${cls}"`);
  }
  return cfg;
}

const defaultClassNames = [{ name: "critical" }, { name: "standard" }, { name: "batch" }];

export function formatPath(path: ReadonlyArray<PropertyKey>): string {
  return path
    .map((p, i) => (typeof p === "number" ? `[${p}]` : i === 0 ? String(p) : `.${String(p)}`))
    .join("");
}
