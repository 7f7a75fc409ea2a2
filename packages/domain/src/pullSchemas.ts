import { z } from "zod";
import { modelName } from "./schemas";
import { text } from "./text";

// SPEC §10: weights from the Hugging Face Hub into the mirror. The shapes the API takes and
// answers, the dashboard's "Add from Hugging Face" form validates with and `llmgw ctl mirror pull`
// prints. The choice of files and the names are `pullChoice.ts`; the memory and fit are `pullFit.ts`.

const count = z.int().min(0);
const sha256Hex = z.string().regex(/^[0-9a-f]{64}$/);

/**
 * One half of `owner/name` as the Hub spells repos: letters, digits, `-`, `_`, `.`, starting with
 * a letter or digit (so never `.` or `..`), and no `..` inside either, as the Hub refuses too.
 */
const REPO_PART = /^[A-Za-z0-9][A-Za-z0-9._-]{0,95}$/;

export function isHubRepo(repo: string): boolean {
  const parts = repo.split("/");
  return parts.length === 2 && parts.every((p) => REPO_PART.test(p) && !p.includes(".."));
}

export const hubRepoSchema = text()
  .max(200)
  .refine(isHubRepo, "must be owner/name: letters, digits, - _ . and no ..");

/** A branch, tag or commit. Branches may hold `/` (`refs/pr/1`); never `..`, a space or a control character. */
export const hubRevisionSchema = text()
  .min(1)
  .max(255)
  .regex(/^[A-Za-z0-9][A-Za-z0-9._/-]*$/, "a branch, tag or commit: letters, digits and . _ / -")
  .refine((r) => !r.includes(".."), "must not contain ..");

/** A quantisation's name as GGUF files spell it (`Q4_K_M`, `IQ4_XS`, `BF16`). */
export const quantNameSchema = text()
  .min(1)
  .max(64)
  .regex(/^[A-Za-z0-9][A-Za-z0-9_.-]*$/, "a quantisation such as Q4_K_M: letters, digits and _ . -");

/** `--file` globs: `*` and `?` over the listed path (over the file name when the glob has no `/`). */
export const fileGlobSchema = text()
  .min(1)
  .max(255)
  .refine((g) => !g.includes("..") && !g.startsWith("/") && !g.includes("\\"), "a path glob inside the repo");

/** A version's name in the mirror: a path segment, so never hidden (`.x`) and no separators. */
export const mirrorVersionName = modelName.refine((v) => !v.startsWith("."), "must not start with .");

/** `POST /api/v1/mirror/pulls` (SPEC §10.2): the same object validates the dashboard's form. */
export const pullRequestSchema = z.strictObject({
  repo: hubRepoSchema,
  revision: hubRevisionSchema.optional(),
  quant: quantNameSchema.optional(),
  files: z.array(fileGlobSchema).min(1).max(64).optional(),
  model: mirrorVersionName.optional(),
  version: mirrorVersionName.optional(),
  dryRun: z.boolean().optional(),
});
export type PullRequest = z.infer<typeof pullRequestSchema>;

export const pullStateSchema = z.enum(["queued", "downloading", "complete", "failed", "cancelled"]);
export type PullState = z.infer<typeof pullStateSchema>;

/** One file of a pull: its path in the repo, the size and SHA-256 the Hub lists, and how far it is. */
export const pullFileSchema = z.object({
  path: z.string(),
  bytes: count,
  bytesDone: count,
  /** The LFS SHA-256 the Hub lists; null for a small file kept in git, whose git hash is checked instead. */
  sha256: sha256Hex.nullable(),
  gitOid: z
    .string()
    .regex(/^[0-9a-f]{40}$/)
    .nullable()
    .default(null),
});
export type PullFile = z.infer<typeof pullFileSchema>;

/** A pull as stored and answered (SPEC §10.4). */
export const pullSchema = z.object({
  id: z.string(),
  repo: z.string(),
  revision: z.string(),
  commit: z.string(),
  model: z.string(),
  version: z.string(),
  state: pullStateSchema,
  files: z.array(pullFileSchema),
  bytesDone: count,
  bytesTotal: count,
  error: z.string().nullable(),
  at: z.string(),
  by: z.string(),
});
export type Pull = z.infer<typeof pullSchema>;

/** One quantisation the dry run offers (SPEC §10.3). */
export const pullChoiceSchema = z.object({
  quant: z.string(),
  files: z.array(z.object({ path: z.string(), bytes: count })),
  bytes: count,
  /** The memory one replica would ask for (SPEC §2.2.5), from the header read by Range. */
  estimateGB: count,
  /** Ready nodes that could hold one replica now, on free capacity. */
  fits: count,
  /** Why llama.cpp would not run it (the GGUF verdict), or null. */
  refusal: z.string().nullable(),
});
export type PullChoice = z.infer<typeof pullChoiceSchema>;

/** A dry run's answer: every quantisation, the one a pull would take, and the best the fleet runs now. */
export const pullDryRunSchema = z.object({
  repo: z.string(),
  commit: z.string(),
  choices: z.array(pullChoiceSchema),
  /** The quantisation a pull with the same request would take (for safetensors: "safetensors"). */
  picked: z.string().nullable(),
  /** The largest quantisation that fits on at least one ready node now; null when none does. */
  best: z.string().nullable(),
});
export type PullDryRun = z.infer<typeof pullDryRunSchema>;

/**
 * What an operator types for a repo: `owner/name`, or `owner/name:Q4_K_M` with the quantisation
 * after the colon (as `ollama pull hf.co/…:Q4_K_M` and llama.cpp's `-hf` take it), a leading
 * `hf.co/` or Hub URL allowed. Split, not checked: `pullRequestSchema` checks the parts.
 */
export function pullSpecOf(spec: string): { repo: string; quant?: string } {
  const bare = spec.trim().replace(/^(https?:\/\/)?(hf\.co|huggingface\.co)\//, "");
  const colon = bare.indexOf(":");
  if (colon < 0) return { repo: bare };
  const quant = bare.slice(colon + 1);
  return quant === "" ? { repo: bare.slice(0, colon) } : { repo: bare.slice(0, colon), quant };
}

/** `POST /mirror/pulls` answers a dry run (200) or the pull (202). */
export const pullAnswerSchema = z.union([pullDryRunSchema, pullSchema]);
export type PullAnswer = z.infer<typeof pullAnswerSchema>;

export function isDryRun(answer: PullAnswer): answer is PullDryRun {
  return "choices" in answer;
}

/** Whether a pull is over: nothing of it runs, and its `.part` files are gone. */
export function pullEnded(state: PullState): boolean {
  return state === "complete" || state === "failed" || state === "cancelled";
}
