import { gguf } from "@huggingface/gguf";
import { listFiles, modelInfo, pathsInfo } from "@huggingface/hub";
import type { GgufHeader, HubFile } from "@llmgw/domain";
import { describeHeaderError, headerOf } from "../mirror/ggufHeader";
import { type HubAccess, HubRefused, hubFetch, hubGet, resolveUrl } from "./hubHttp";

// What llmgw asks the Hub, through `@huggingface/hub` where it has the call (SPEC §10.1): a
// revision's commit, the files at that commit with their sizes and LFS digests, whether the
// downloads will be let through, and a GGUF file's header read by Range.

/** A listing this long is not a model repo worth walking (the Hub pages it 1,000 at a time). */
const MAX_LISTED = 50_000;
const SHA256 = /^[0-9a-f]{64}$/;
const GIT_OID = /^[0-9a-f]{40}$/;

/**
 * The commit a revision is at now, and whether the repo is gated. Everything after is asked at
 * that commit, so a branch that moves during a pull cannot mix two versions' files.
 */
export async function resolveRevision(
  access: HubAccess,
  repo: string,
  revision: string,
): Promise<{ commit: string; gated: boolean }> {
  const info = await modelInfo({
    name: repo,
    revision,
    hubUrl: access.endpoint,
    fetch: hubFetch(access),
    additionalFields: ["sha"],
  });
  if (typeof info.sha !== "string" || !GIT_OID.test(info.sha)) {
    throw new Error(`the Hub named no commit for ${repo} at ${revision}`);
  }
  return { commit: info.sha, gated: info.gated !== false && info.gated !== undefined };
}

/**
 * The files at a commit. Literal paths (no `*` or `?`) are asked for by name (`paths-info`), the
 * rest by walking the whole tree.
 */
export async function listFilesAt(
  access: HubAccess,
  repo: string,
  commit: string,
  literal: readonly string[] | null,
): Promise<HubFile[]> {
  const common = { repo, revision: commit, hubUrl: access.endpoint, fetch: hubFetch(access) };
  const found: HubFile[] = [];
  if (literal) {
    for (const entry of await pathsInfo({ ...common, paths: [...literal] })) {
      if (entry.type === "file") found.push(hubFileOf(entry));
    }
    return found;
  }
  for await (const entry of listFiles({ ...common, recursive: true })) {
    if (entry.type !== "file") continue;
    found.push(hubFileOf(entry));
    if (found.length > MAX_LISTED) throw new Error(`${repo} lists more than ${MAX_LISTED} files`);
  }
  return found;
}

function hubFileOf(entry: {
  path: string;
  size: number;
  oid?: string;
  lfs?: { oid: string; size: number };
}): HubFile {
  const sha256 = entry.lfs?.oid.toLowerCase() ?? null;
  return {
    path: entry.path,
    bytes: entry.lfs?.size ?? entry.size,
    sha256: sha256 !== null && SHA256.test(sha256) ? sha256 : null,
    gitOid: !entry.lfs && entry.oid && GIT_OID.test(entry.oid) ? entry.oid : null,
  };
}

/**
 * Whether the Hub lets this download through (SPEC §10.5: a gated repo lists its files to anyone;
 * only its downloads need the token). One HEAD, not followed: a redirect to the CDN means yes.
 */
export async function checkDownload(
  access: HubAccess,
  repo: string,
  commit: string,
  path: string,
): Promise<void> {
  const answer = await hubGet(access, resolveUrl(access, repo, commit, path), {
    method: "HEAD",
    follow: false,
  });
  answer.body.resume();
}

/**
 * The header of a GGUF file at the Hub, read by Range in 2 MB pieces (never the whole file). The
 * Hub's refusals are thrown (a gated file is the pull's answer, not a bad header); anything else
 * comes back as `{ error }`, as a bad file in the mirror does.
 */
export async function headerAt(access: HubAccess, url: string): Promise<GgufHeader> {
  try {
    return headerOf(await gguf(url, { fetch: hubFetch(access, { rangesOnly: true }) }));
  } catch (err) {
    if (err instanceof HubRefused) throw err;
    return { error: describeHeaderError(err) };
  }
}
