/**
 * The environment an engine starts with (SPEC §4): what it needs to find its libraries, its GPUs
 * and a temporary directory, and nothing of the agent's own. The agent's token (`LLMGW_TOKEN`)
 * and server stay with the agent: the agent downloads the weights, so an engine never needs a
 * token, and an engine (or code a model brings along) must not be able to act as the agent.
 * Anything else the agent's environment holds (cloud credentials, a Hugging Face token) stays out
 * too, unless the node's operator passes it with `--engine-env NAME`.
 */

/** Passed by name: the program search path, the user, locale, time zone, temp and cache dirs. */
const NAMES = new Set(
  ["PATH", "HOME", "USER", "LOGNAME", "LANG", "LANGUAGE", "TZ", "TMPDIR", "TMP", "TEMP"].concat([
    "LD_LIBRARY_PATH",
    "XDG_CACHE_HOME",
    "HF_HOME",
    "HF_HUB_OFFLINE",
  ]),
);

/**
 * Passed by prefix: locale categories, GPU selection and drivers (CUDA_VISIBLE_DEVICES,
 * NVIDIA_*, ROCm's HIP_/ROCR_), the math libraries' threads, and the engines' own tuning
 * (GGML_*, VLLM_*), all set by whoever runs the agent on this node. Not LLAMA_ARG_*: llama-server
 * reads its flags from those, and they would pass beside the allow-list.
 */
const PREFIXES = ["LC_", "CUDA_", "NVIDIA_", "HIP_", "ROCR_", "OMP_", "MKL_", "OPENBLAS_", "GGML_", "VLLM_"];

/** Never passed, whatever `--engine-env` says. */
const AGENT_OWN = "LLMGW_";

/** Checks `--engine-env NAME` values at start-up. */
export function engineEnvNames(flags: readonly string[]): string[] {
  for (const name of flags) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name))
      throw new Error(`--engine-env wants a variable name, got "${name}"`);
    if (name.toUpperCase().startsWith(AGENT_OWN)) {
      throw new Error(`--engine-env ${name}: the agent's own variables never reach an engine`);
    }
  }
  return [...flags];
}

/** The variables of `env` an engine starts with: the lists above plus `extra` names. */
export function engineEnvironment(
  env: NodeJS.ProcessEnv,
  extra: readonly string[] = [],
): Record<string, string> {
  const passed = new Set(extra);
  const kept = (name: string) =>
    !name.toUpperCase().startsWith(AGENT_OWN) &&
    (NAMES.has(name) || passed.has(name) || PREFIXES.some((prefix) => name.startsWith(prefix)));
  return Object.fromEntries(
    Object.entries(env).filter(
      (entry): entry is [string, string] => entry[1] !== undefined && kept(entry[0]),
    ),
  );
}
