import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { ConfigError } from "../src/config";
import { tempDir } from "./mirror/fixtures";

/** Writes `text` as a llmgw.yaml in a fresh directory and returns its path. */
export async function configFile(text: string): Promise<string> {
  const file = join(await tempDir(), "llmgw.yaml");
  await writeFile(file, text);
  return file;
}

/** The message loadConfig refuses a configuration with; fails the test when it accepts it. */
export function problemOf(load: () => unknown): string {
  try {
    load();
  } catch (err) {
    if (err instanceof ConfigError) return err.message;
    throw err;
  }
  throw new Error("expected loadConfig to refuse the configuration");
}
