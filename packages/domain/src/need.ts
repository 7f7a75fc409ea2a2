import type { Model, Profile, Resources } from "./schemas";

/** The profile a model runs with unless told otherwise: the first. */
export function defaultProfile(model: Pick<Model, "profiles">): Profile | undefined {
  return model.profiles[0];
}

/** What one replica of the model reserves on a node: its default profile's need. */
export function replicaNeed(model: Pick<Model, "profiles">): Resources {
  const profile = defaultProfile(model);
  return {
    memoryGB: profile?.minMemoryGB ?? 0,
    cpuCores: profile?.cpuCores ?? 0,
    gpus: profile?.gpus ?? 0,
  };
}
