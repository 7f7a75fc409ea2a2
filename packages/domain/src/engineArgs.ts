/**
 * Which of a profile's `args` this node lets reach an engine (SPEC §4: "agents are trusted with
 * their own node and nothing more"). Any operator can set a profile's args, and every node runs
 * them, so the node keeps its own list: tuning flags only, none that names a file, a directory, a
 * URL, a host or a port, none that runs code or carries a secret, none the agent sets itself. The
 * node's operator extends the list with `--allow-arg engine=--flag`; nothing from the server can.
 */

/** A flag that stands alone, one that takes a value, or one that may (`-fa` or `-fa on`). */
export type ArgKind = "switch" | "value" | "optional";

/** Per engine, the flags allowed and how each takes its value. Maps: an engine name is data. */
export type ArgRules = ReadonlyMap<string, ReadonlyMap<string, ArgKind>>;

type ArgList = { value: string[]; switch: string[]; optional?: string[] };

/** llama-server's tuning: context, batching, threads, offload, KV cache, RoPE, sampling defaults. */
const LLAMACPP: ArgList = {
  value: [
    ...["--ctx-size", "-c", "--parallel", "-np", "--n-gpu-layers", "-ngl", "--gpu-layers"],
    ...["--batch-size", "-b", "--ubatch-size", "-ub", "--threads-batch", "-tb", "--threads-http"],
    ...["--cache-type-k", "-ctk", "--cache-type-v", "-ctv", "--cache-reuse", "--defrag-thold", "-dt"],
    ...["--rope-scaling", "--rope-scale", "--rope-freq-base", "--rope-freq-scale"],
    ...["--yarn-orig-ctx", "--yarn-ext-factor", "--yarn-attn-factor", "--yarn-beta-slow"],
    ...["--yarn-beta-fast", "--split-mode", "-sm", "--tensor-split", "-ts", "--main-gpu", "-mg"],
    ...["--n-cpu-moe", "-ncmoe", "--numa", "--temp", "--top-k", "--top-p", "--min-p"],
    ...["--repeat-penalty", "--repeat-last-n", "--n-predict", "-n", "--keep", "--seed", "-s"],
    ...["--pooling", "--chat-template", "--reasoning-format", "--reasoning-budget"],
    ...["--timeout", "-to", "--prio", "--poll"],
  ],
  switch: [
    ...["--cont-batching", "-cb", "--no-cont-batching", "-nocb", "--mlock", "--no-mmap"],
    ...["--embedding", "--embeddings", "--reranking", "--jinja", "--no-jinja", "--metrics"],
    ...["--no-kv-offload", "-nkvo", "--cpu-moe", "-cmoe", "--swa-full", "--kv-unified", "-kvu"],
    ...["--context-shift", "--no-context-shift", "--no-webui", "--slots", "--no-slots"],
    ...["--no-warmup", "--check-tensors"],
  ],
  optional: ["--flash-attn", "-fa"],
};

/** vLLM's tuning: parallelism, memory, lengths, dtypes and quantization, scheduling, parsers. */
const VLLM: ArgList = {
  value: [
    ...["--tensor-parallel-size", "-tp", "--pipeline-parallel-size", "-pp"],
    ...["--data-parallel-size", "-dp", "--gpu-memory-utilization", "--max-model-len"],
    ...["--max-num-seqs", "--max-num-batched-tokens", "--dtype", "--quantization", "-q"],
    ...["--kv-cache-dtype", "--block-size", "--swap-space", "--cpu-offload-gb", "--seed"],
    ...["--max-seq-len-to-capture", "--max-num-partial-prefills", "--long-prefill-token-threshold"],
    ...["--scheduling-policy", "--distributed-executor-backend", "--tool-call-parser"],
    ...["--reasoning-parser", "--max-logprobs"],
  ],
  switch: [
    ...["--enforce-eager", "--enable-prefix-caching", "--no-enable-prefix-caching"],
    ...["--enable-chunked-prefill", "--no-enable-chunked-prefill", "--disable-custom-all-reduce"],
    ...["--enable-expert-parallel", "--enable-auto-tool-choice", "--calculate-kv-scales"],
    ...["--async-scheduling"],
  ],
};

export const DEFAULT_ALLOWED_ARGS: ArgRules = new Map([
  ["llamacpp", rulesOf(LLAMACPP)],
  ["vllm", rulesOf(VLLM)],
]);

const SETS = "the agent sets it";
const FILES = "it names a file, a directory or a URL";
/** Flags refused whatever the lists say, with why; `--allow-arg` cannot add them either. */
const REFUSED = new Map<string, string>([
  ...["--model", "-m", "--host", "--port", "--served-model-name", "--alias", "-a"].map(
    (flag) => [flag, SETS] as const,
  ),
  ...["--trust-remote-code", "--worker-cls", "--worker-extension-cls", "--middleware"].map(
    (flag) => [flag, "it runs code from outside the agent"] as const,
  ),
  ...["--tool-parser-plugin", "--logits-processors"].map(
    (flag) => [flag, "it runs code from outside the agent"] as const,
  ),
  ...["--api-key", "--hf-token", "-hft"].map((flag) => [flag, "it carries a secret"] as const),
  ["--rpc", "it connects to other hosts"],
  ...["-mu", "-md", "-mm", "-mmu", "-f", "-ld", "--logdir", "--tokenizer", "--revision"].map(
    (flag) => [flag, FILES] as const,
  ),
]);

/** Words in a long flag's name that mean it reaches outside the engine's memory. */
const OUTSIDE = new Set(
  ["file", "files", "path", "dir", "url", "log", "logs", "lora", "ssl", "hf", "key", "token"].concat([
    "config",
    "download",
    "mmproj",
    "cert",
    "keyfile",
    "certfile",
    "draft",
    "grammar",
    "prompt",
  ]),
);

const FLAG = /^--?[A-Za-z][A-Za-z0-9-]{0,63}$/;
const NUMBER = /^-?(\d+(\.\d*)?|\.\d+)(e[-+]?\d+)?$/i;
/** A value is a number or one plain word (a dtype, a cache type, "3,1"): never a path or a flag. */
const WORD = /^[A-Za-z0-9][A-Za-z0-9._:+,-]{0,63}$/;

/**
 * A name from the server as a reason shows it: as it is when plain, else quoted and cut short, so
 * a reason never carries control characters (the heartbeat refuses them) or a megabyte of arg.
 */
export function shownName(text: string): string {
  return /^[A-Za-z0-9._:-]{1,64}$/.test(text) ? text : JSON.stringify(text.slice(0, 100));
}

/** Why `flag` may never be allowed, or null. */
export function refusedFlag(flag: string): string | null {
  const listed = REFUSED.get(flag);
  if (listed) return listed;
  if (/^-hf/.test(flag)) return FILES;
  if (
    flag.startsWith("--") &&
    flag
      .slice(2)
      .split("-")
      .some((word) => OUTSIDE.has(word))
  )
    return FILES;
  return null;
}

/**
 * The rules on this node: the defaults plus `--allow-arg engine=--flag` (repeatable). An added flag
 * may stand alone or take one value, checked like any other. Refuses, at start-up, a flag that
 * can never be allowed.
 */
export function argRules(allowFlags: readonly string[], defaults: ArgRules = DEFAULT_ALLOWED_ARGS): ArgRules {
  const rules = new Map([...defaults].map(([engine, flags]) => [engine, new Map(flags)]));
  for (const entry of allowFlags) {
    const eq = entry.indexOf("=");
    const engine = entry.slice(0, eq).trim();
    const flag = entry.slice(eq + 1).trim();
    if (eq <= 0 || !FLAG.test(flag)) throw new Error(`--allow-arg wants engine=--flag, got "${entry}"`);
    const why = refusedFlag(flag);
    if (why) throw new Error(`--allow-arg ${entry}: ${flag} cannot be allowed: ${why}`);
    const flags = rules.get(engine) ?? new Map<string, ArgKind>();
    if (!flags.has(flag)) flags.set(flag, "optional");
    rules.set(engine, flags);
  }
  return rules;
}

/**
 * Why this node will not start `engine` with `args`, naming the first arg refused, or null when
 * every arg is allowed. `setByAgent` holds the flags the engine's command already sets.
 */
export function refusedArgs(
  engine: string,
  args: readonly string[],
  rules: ArgRules,
  setByAgent: ReadonlySet<string> = new Set(),
): string | null {
  const allowed = rules.get(engine) ?? new Map<string, ArgKind>();
  return refusedBy(args, (flag) => allowed.get(flag), setByAgent, engine);
}

/**
 * Why no node will start `engine` with `args`, whatever its `--allow-arg`, or null (SPEC §11.1:
 * the API says so before anything starts). A flag on the built-in list is checked as a node does;
 * one off it passes here (a node's operator may have allowed it) unless no node may ever allow it,
 * and then takes one value or none, checked like any other.
 */
export function refusedOnEveryNode(engine: string, args: readonly string[]): string | null {
  const listed = DEFAULT_ALLOWED_ARGS.get(engine) ?? new Map<string, ArgKind>();
  return refusedBy(
    args,
    (flag) => listed.get(flag) ?? (refusedFlag(flag) === null ? "optional" : undefined),
    new Set(),
    engine,
  );
}

function refusedBy(
  args: readonly string[],
  kindOf: (flag: string) => ArgKind | undefined,
  setByAgent: ReadonlySet<string>,
  engine: string,
): string | null {
  const refuse = (arg: string, why: string) => `refused arg ${JSON.stringify(arg.slice(0, 100))}: ${why}`;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? "";
    const eq = arg.indexOf("=");
    const flag = eq > 0 ? arg.slice(0, eq) : arg;
    if (!FLAG.test(flag)) return refuse(arg, "each arg is a flag or the value of the flag before it");
    if (setByAgent.has(flag)) return refuse(arg, SETS);
    const kind = kindOf(flag);
    if (kind === undefined) {
      const why = refusedFlag(flag);
      return refuse(
        arg,
        why ??
          `not on this node's allow-list for ${shownName(engine)} (its operator may add it: --allow-arg ${shownName(engine)}=${flag})`,
      );
    }
    if (eq > 0) {
      if (kind === "switch") return refuse(arg, `${flag} takes no value`);
      if (!plainValue(arg.slice(eq + 1))) return refuse(arg, "a value is a number or one plain word");
      continue;
    }
    const next = args[i + 1];
    if (kind === "switch" || (kind === "optional" && (next === undefined || isFlag(next)))) continue;
    if (next === undefined) return refuse(arg, `${flag} wants a value`);
    if (!plainValue(next)) return refuse(next, `the value of ${flag} is a number or one plain word`);
    i += 1;
  }
  return null;
}

function plainValue(value: string): boolean {
  return NUMBER.test(value) || WORD.test(value);
}

function isFlag(word: string): boolean {
  return word.startsWith("-") && !NUMBER.test(word);
}

function rulesOf(list: ArgList): Map<string, ArgKind> {
  return new Map<string, ArgKind>([
    ...list.value.map((flag) => [flag, "value"] as const),
    ...list.switch.map((flag) => [flag, "switch"] as const),
    ...(list.optional ?? []).map((flag) => [flag, "optional"] as const),
  ]);
}
