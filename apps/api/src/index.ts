export { type AppOptions, type AppType, createApp } from "./app";
export type { CreatedToken, SessionView, TokenCreate, TokenView } from "./auth/schemas";
export type { Role } from "./config";
export { type Config, ConfigError, loadConfig } from "./config";
export { type Deps, openDeps } from "./deps";
export { writeGgufFile, writeNotGguf, writeSafetensorsFile } from "./mirror/ggufWriter";
export { type RunningServer, startServer } from "./server";
