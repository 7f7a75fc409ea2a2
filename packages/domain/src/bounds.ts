// The bounds the schemas hold numbers to, named once: a leaf, so any schema or rule may import it
// without importing the rules that use it back. Far above any real machine or fleet; they are there
// so a typo or a hostile body is a 400 naming the field, not a number that breaks the arithmetic.

/** Memory in GB: a node's, a profile's need, a replica's, a quota's. */
export const MAX_MEMORY_GB = 1_000_000;
/** CPU cores: a node's count, a profile's need, a replica's, a quota's. */
export const MAX_CPU_CORES = 100_000;
/** GPUs: a node's, a profile's need, a replica's, a quota's. */
export const MAX_GPUS = 1024;
/** Replicas of one model a target or a patch may ask for, or a quota allow. */
export const MAX_REPLICA_COUNT = 10_000;
/** The most replicas `maxReplicas` may ask for (SPEC §9.6). */
export const MAX_REPLICAS = 64;

/**
 * "max ≥ floor", the one rule every way of setting how far traffic may take a model checks (SPEC
 * §9.6): the scaling a model stores, the card's patch, the serve form.
 */
export const coversFloor = (max: number, floor: number): boolean => max >= floor;

/** A number of replicas held within `[floor, max]` (SPEC §9.2, §9.3). */
export const withinFloorAndMax = (replicas: number, floor: number, max: number): number =>
  Math.max(floor, Math.min(max, replicas));
