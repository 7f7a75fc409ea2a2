export { type AppOptions, type AppType, createApp } from "./app";
export { type Config, ConfigError, loadConfig } from "./config";
export { type Deps, openDeps } from "./deps";
export { writeGgufFile, writeNotGguf, writeSafetensorsFile } from "./mirror/ggufWriter";
export { type RunningServer, startServer } from "./server";
