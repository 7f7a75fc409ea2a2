// The contract of SPEC §1–§3, by section (schemas/). JSON field names here are what clients rely
// on. Every string a client sends is `text()`: no control characters, no lone surrogates (SPEC §4).

export * from "./schemas/api";
export * from "./schemas/catalogue";
export * from "./schemas/fleet";
export * from "./schemas/headroom";
export * from "./schemas/mirror";
export {
  ENGINE_PATTERN,
  type Engine,
  engineName,
  labelKey,
  labelsSchema,
  labelValue,
  MAX_ENGINES,
  MAX_LABELS,
  modelName,
  NAME_PATTERN,
  nodeName,
  sourceSchema,
} from "./schemas/primitives";
export * from "./schemas/rollout";
