// The bounds the schemas hold numbers to, named once: a leaf, so any schema or rule may import it
// without importing the rules that use it back.

/** The most replicas `maxReplicas` may ask for (SPEC §9.6). */
export const MAX_REPLICAS = 64;
