// What `llmgw demo` simulates a fleet with, and the tests build theirs from: an OpenAI-compatible
// stand-in engine, GGUF and safetensors files written from a header, and real models' headers.
export * from "./engine";
export * from "./ggufFiles";
export * from "./ggufModels";
export * from "./promptCache";
