import type { Model } from "./schemas/catalogue";
import type { Replica } from "./schemas/fleet";

// How many requests a replica takes at once (SPEC §7.1): the gateway's bound per replica, and the
// autoscaler's default target (SPEC §9.2). One rule for both.

/** Requests an engine runs at once when its profile does not say (SPEC §7.1). */
export const DEFAULT_SLOTS = 4;

/** `--parallel N`, `-np N` or `--parallel=N` among an engine's args (llama.cpp's spelling). */
export function slotsOfArgs(args: readonly string[]): number {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? "";
    const joined = /^--parallel=(\d+)$/.exec(arg)?.[1];
    const value = joined ?? (arg === "--parallel" || arg === "-np" ? args[i + 1] : undefined);
    if (value !== undefined && /^\d+$/.test(value) && Number(value) > 0) return Number(value);
  }
  return DEFAULT_SLOTS;
}

/** How many requests a replica takes at once: its profile's, else the model's first profile's. */
export function slotsOf(model: Pick<Model, "profiles">, replica: Pick<Replica, "profile">): number {
  const profile = model.profiles.find((p) => p.name === replica.profile) ?? model.profiles[0];
  return slotsOfArgs(profile?.args ?? []);
}
