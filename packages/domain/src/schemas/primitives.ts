import { z } from "zod";
import { text, textMap } from "../text";

// The contract's building blocks: names, labels, URLs and counts every other section is made of.
// Every string a client sends is `text()`: no control characters, no lone surrogates (SPEC §4).

export const count = z.int().min(0);
export const limit = z.int().min(0).nullable();

export const NAME_PATTERN = /^[A-Za-z0-9._:-]{1,64}$/;
export const modelName = text().regex(NAME_PATTERN, "1–64 characters of letters, digits and . _ : -");
/** SPEC §4: a node's name follows the model-name rule (it is a path segment and a table cell). */
export const nodeName = modelName;

/** What the agent finds on PATH and a profile names: a word, never a flag or a path. */
export const ENGINE_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
export const engineName = text().regex(
  ENGINE_PATTERN,
  "1–64 characters of letters, digits and . _ -, starting with a letter or digit",
);
export const MAX_ENGINES = 32;

/** SPEC §4: labels (and the selectors that match them) are at most 64, keys 63 and values 255 characters. */
export const MAX_LABELS = 64;
export const labelKey = text().min(1, "must not be empty").max(63, "must be at most 63 characters");
export const labelValue = text().max(255, "must be at most 255 characters");
export const labelsSchema = textMap({ max: MAX_LABELS, what: "labels" }, labelKey, labelValue);

/** SPEC §4: where weights come from is a mirror URL or an http(s) URL, never a path or a flag. */
export const sourceSchema = text()
  .min(1, "a model needs a source")
  .max(2048)
  .refine(isHttpUrl, "must be an http(s) URL, such as the mirror's");

/** An engine's base URL: http(s), a host, and nothing after it but an optional "/". */
export function isEndpoint(endpoint: string): boolean {
  if (!isHttpUrl(endpoint)) return false;
  const url = new URL(endpoint);
  return (
    (url.pathname === "/" || url.pathname === "") &&
    url.search === "" &&
    url.hash === "" &&
    url.username === "" &&
    url.password === ""
  );
}

function isHttpUrl(source: string): boolean {
  if (!/^https?:\/\//i.test(source)) return false;
  try {
    return new URL(source).hostname !== "";
  } catch {
    return false;
  }
}

/** An owner: a team or person, `""` for none. */
export const ownerName = text().max(64);
export const className = text().min(1).max(64);
/** Prose an operator writes: it may keep its line breaks. */
export const description = text({ multiline: true });
export type Engine = "llamacpp" | "vllm";

/** A SHA-256 digest as lowercase hex, as `sha256sum` prints it. */
export const sha256Hex = z.string().regex(/^[0-9a-f]{64}$/);
