import { compareText } from "./compare";
import { NAME_PATTERN } from "./schemas";
import { hasControl } from "./text";

// SPEC §10.2: which files of a Hub repo a pull takes, and where they land in the mirror. Pure:
// the listing comes in, the choice goes out; the API lists, reads headers and downloads.

/** One file as the Hub lists it at a commit. */
export interface HubFile {
  path: string;
  bytes: number;
  /** The LFS object's SHA-256; null for a small file kept in git. */
  sha256: string | null;
  /** The git blob id (SHA-1 of `blob <size>\0<bytes>`): what checks a file that has no LFS digest. */
  gitOid: string | null;
}

/** What a pull takes: the files, the quantisation they are (GGUF), and the version it names. */
export type PullSelection =
  | { kind: "gguf"; quant: string; files: HubFile[] }
  | { kind: "safetensors"; files: HubFile[] }
  | { kind: "globs"; files: HubFile[] };

/** Why nothing was chosen: the quantisations there are (SPEC §10.5 `no_matching_files`). */
export type NoMatch = { kind: "none"; quants: string[] };

export const DEFAULT_QUANT = "Q4_K_M";
/** The dry run's and a safetensors pull's name for what it takes when there is no quantisation. */
export const SAFETENSORS_CHOICE = "safetensors";

// A quantisation as converters write it into names: llama.cpp's types (Q4_K_M, IQ4_XS, Q8_0,
// TQ1_0), the float ones (F16, BF16, F32) and MXFP4; unsloth's "UD-Q4_K_XL" ends in one too.
const QUANT = /^(?:I?Q\d(?:_[A-Z0-9]+)*|TQ\d_\d|B?F16|F32|MXFP4(?:_[A-Z0-9]+)*)$/i;
const SPLIT = /-(\d{5})-of-(\d{5})\.gguf$/i;

function baseName(path: string): string {
  return path.slice(path.lastIndexOf("/") + 1);
}

function isGguf(path: string): boolean {
  return path.toLowerCase().endsWith(".gguf");
}

/**
 * A GGUF the model is made of: not a vision projector (`mmproj-*.gguf`), which is loaded beside a
 * model rather than as one, and would otherwise be offered as a quantisation of its own.
 */
export function isModelGguf(path: string): boolean {
  return isGguf(path) && !baseName(path).toLowerCase().startsWith("mmproj");
}

/** Part `n` of `of` when the name says it is a split file (`-00001-of-00003.gguf`), else null. */
export function splitPart(path: string): { part: number; of: number } | null {
  const m = SPLIT.exec(path);
  return m ? { part: Number(m[1]), of: Number(m[2]) } : null;
}

/**
 * The quantisation a GGUF file's name says (upper-cased): the last `-`/`.`-separated word before
 * `.gguf` and any split suffix that is one (walking back, since `model-Q4_K_M-imat` ends in
 * another word); else the name's stem, so each unnamed file is a choice of its own.
 */
export function quantOf(path: string): string {
  const stem = baseName(path)
    .replace(SPLIT, "")
    .replace(/\.gguf$/i, "");
  const words = stem.split(/[-.]/);
  for (let i = words.length - 1; i >= 0; i--) {
    const word = words[i] ?? "";
    if (QUANT.test(word)) return word.toUpperCase();
  }
  return stem;
}

/**
 * The GGUF quantisations of a listing, each with its files (every part of a split file), in the
 * order of their file names: a split quantisation kept in a subfolder sits among the others.
 */
export function ggufChoices(files: readonly HubFile[]): Map<string, HubFile[]> {
  const byQuant = new Map<string, HubFile[]>();
  const byName = [...files].sort(
    (a, b) => compareText(baseName(a.path), baseName(b.path)) || compareText(a.path, b.path),
  );
  for (const file of byName) {
    if (!isModelGguf(file.path)) continue;
    const quant = quantOf(file.path);
    const group = byQuant.get(quant);
    if (group) group.push(file);
    else byQuant.set(quant, [file]);
  }
  return byQuant;
}

/**
 * The quantisation a pull takes (SPEC §10.2): the one asked (its name, else a file name that holds
 * it, case-insensitively), else Q4_K_M, else the first Q4*, else the first; null when asked for
 * one the repo does not have.
 */
export function pickQuant(quants: readonly string[], asked?: string): string | null {
  if (asked !== undefined) {
    const wanted = asked.toUpperCase();
    return quants.find((q) => q === wanted) ?? quants.find((q) => q.includes(wanted)) ?? null;
  }
  return (
    quants.find((q) => q === DEFAULT_QUANT) ?? quants.find((q) => q.startsWith("Q4")) ?? quants[0] ?? null
  );
}

/**
 * What vLLM reads from a repo of safetensors: the weights, the configuration and the tokenizer, at
 * the repo's top level (what `vllm serve <dir>` opens; subfolders hold other formats or originals).
 */
export function isServedBesideSafetensors(path: string): boolean {
  if (path.includes("/")) return false;
  const name = path.toLowerCase();
  return (
    name.endsWith(".safetensors") ||
    name.endsWith(".json") ||
    name.startsWith("tokenizer") ||
    name.endsWith(".model")
  );
}

/** `*` and `?` within one path segment; a glob without `/` is matched against the file name. */
export function globMatches(glob: string, path: string): boolean {
  const target = glob.includes("/") ? path : baseName(path);
  const pattern = glob
    .split("")
    .map((c) => (c === "*" ? "[^/]*" : c === "?" ? "[^/]" : c.replace(/[\\^$.|+()[\]{}]/g, "\\$&")))
    .join("");
  return new RegExp(`^${pattern}$`, "i").test(target);
}

/** The files a pull takes, or why there are none. */
export function selectFiles(
  listing: readonly HubFile[],
  request: { quant?: string; files?: readonly string[] },
): PullSelection | NoMatch {
  const choices = ggufChoices(listing);
  const quants = [...choices.keys()];
  if (request.files) {
    const globs = request.files;
    const files = listing.filter((f) => globs.some((g) => globMatches(g, f.path)));
    return files.length > 0 ? { kind: "globs", files: sortByPath(files) } : { kind: "none", quants };
  }
  if (quants.length > 0) {
    const quant = pickQuant(quants, request.quant);
    const files = quant === null ? undefined : choices.get(quant);
    return quant !== null && files ? { kind: "gguf", quant, files } : { kind: "none", quants };
  }
  const files = listing.filter((f) => isServedBesideSafetensors(f.path));
  const hasWeights = files.some((f) => f.path.toLowerCase().endsWith(".safetensors"));
  return hasWeights && request.quant === undefined
    ? { kind: "safetensors", files: sortByPath(files) }
    : { kind: "none", quants };
}

/**
 * The longest file name a listing may give, in UTF-8 bytes (SPEC §10.5a): file systems stop at
 * 255, and the mirror writes `<name>.part` and `<name>.size` beside it.
 */
export const MAX_LISTED_NAME_BYTES = 240;

/**
 * Why a listed path may not be written (SPEC §10.5): a `..` or empty segment, a leading `/`, a
 * backslash, a control character, or a name longer than the mirror can write (§10.5a). Null when
 * it stays inside the version's folder.
 */
export function unsafeListedPath(path: string): string | null {
  if (path.length === 0) return "an empty path";
  const long = path.split("/").find((s) => new TextEncoder().encode(s).length > MAX_LISTED_NAME_BYTES);
  if (long !== undefined)
    return `a name of ${new TextEncoder().encode(long).length} bytes (at most ${MAX_LISTED_NAME_BYTES}): ${JSON.stringify(long.slice(0, 40))}…`;
  if (path.startsWith("/")) return `${JSON.stringify(path)} is absolute`;
  if (path.includes("\\")) return `${JSON.stringify(path)} holds a backslash`;
  if (hasControl(path)) return "a path holds a control character";
  if (path.split("/").some((s) => s === ".." || s === "." || s === "")) {
    return `${JSON.stringify(path)} leaves the version's folder`;
  }
  return null;
}

/**
 * The file's name in the mirror: the last segment of its path, since a version's files sit directly
 * in its folder (SPEC §4), as a split model's parts in a Hub subfolder do once pulled. A hidden
 * name (`.x`) would never be listed, so it is refused like an unsafe path.
 */
export function mirrorFileOf(path: string): string {
  return baseName(path);
}

/**
 * The problem with a selection's files, or null: an unsafe path, a name the mirror would hide, or
 * two paths that land on one file name.
 */
export function selectionProblem(files: readonly HubFile[]): string | null {
  const seen = new Map<string, string>();
  for (const { path } of files) {
    const unsafe = unsafeListedPath(path);
    if (unsafe) return `the Hub listed a path llmgw will not write: ${unsafe}`;
    const name = mirrorFileOf(path);
    if (name.startsWith("."))
      return `the Hub listed a hidden file llmgw will not write: ${JSON.stringify(path)}`;
    // `.part` and `.size` are the mirror's bookkeeping (SPEC §4): such a file would read as a download.
    if (/\.(part|size)$/i.test(name))
      return `the Hub listed ${JSON.stringify(path)}, a name the mirror keeps for downloads`;
    const other = seen.get(name);
    if (other)
      return `${JSON.stringify(other)} and ${JSON.stringify(path)} would both be ${name} in the mirror`;
    seen.set(name, path);
  }
  return null;
}

/** SPEC §10.2: the repo's name after the slash, lower-cased, when that is a valid model name. */
export function defaultPullModel(repo: string): string | null {
  const name = repo.slice(repo.indexOf("/") + 1).toLowerCase();
  return NAME_PATTERN.test(name) ? name : null;
}

/** SPEC §10.2: the quantisation for GGUF, else the first 12 characters of the commit. */
export function defaultPullVersion(selection: PullSelection, commit: string): string {
  const name = selectionName(selection);
  return name === SAFETENSORS_CHOICE || name === CHOSEN_FILES ? commit.slice(0, 12) : name;
}

/** What `--file` globs chose, as the dry run names it when they are not one quantisation. */
export const CHOSEN_FILES = "files";

/** The quantisation a selection is, as the dry run names it. */
export function selectionName(selection: PullSelection): string {
  if (selection.kind === "gguf") return selection.quant;
  if (selection.kind === "safetensors") return SAFETENSORS_CHOICE;
  const quants = new Set(selection.files.filter((f) => isModelGguf(f.path)).map((f) => quantOf(f.path)));
  const [only] = quants;
  return quants.size === 1 && only ? only : CHOSEN_FILES;
}

function sortByPath(files: readonly HubFile[]): HubFile[] {
  return [...files].sort((a, b) => compareText(a.path, b.path));
}
