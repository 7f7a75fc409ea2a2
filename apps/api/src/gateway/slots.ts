// The rule lives in the domain: the autoscaler's default target is a replica's slots too (SPEC §9.2).
export { DEFAULT_SLOTS, slotsOf, slotsOfArgs } from "@llmgw/domain";
