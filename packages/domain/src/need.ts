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

/**
 * The order placement tries a model's profiles in (SPEC §2.6): highest `priority` first, ties in
 * declared order (the sort is stable), so a model with one profile tries just that one.
 */
export function profilesByPriority(model: Pick<Model, "profiles">): Profile[] {
  return [...model.profiles].sort((a, b) => b.priority - a.priority);
}

/** What one replica run with `profile` reserves on a node. */
export function profileNeed(profile: Profile | undefined): Resources {
  return {
    memoryGB: profile?.minMemoryGB ?? 0,
    cpuCores: profile?.cpuCores ?? 0,
    gpus: profile?.gpus ?? 0,
  };
}
