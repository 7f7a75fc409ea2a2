import { gguf } from "@huggingface/gguf";
import { listFiles, modelInfo, pathsInfo } from "@huggingface/hub";
import type { GgufHeader, HubFile } from "@llmgw/domain";
import { describeHeaderError, headerOf } from "../mirror/ggufHeader";
import { badListing } from "./bounds";
import {
  type HubAccess,
  type HubCall,
  HubRefused,
  HubTimeout,
  hubFetch,
  hubGet,
  isHubTimeout,
  resolveUrl,
  timeoutMsOf,
} from "./hubHttp";

// What llmgw asks the Hub, through `@huggingface/hub` where it has the call (SPEC §10.1): a
// revision's commit, the files at that commit with their sizes and LFS digests, whether the
// downloads will be let through, and a GGUF file's header read by Range. Each call takes the
// asking request's `HubCall`: its client's signal and its listing's bounds (SPEC §10.5a).

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
  call: HubCall = {},
): Promise<{ commit: string; gated: boolean }> {
  const info = await modelInfo({
    name: repo,
    revision,
    hubUrl: access.endpoint,
    fetch: hubFetch(access, { call }),
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
  call: HubCall = {},
): Promise<HubFile[]> {
  const common = { repo, revision: commit, hubUrl: access.endpoint, fetch: hubFetch(access, { call }) };
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

/**
 * One listed file, checked (SPEC §10.5a): the library passes on whatever JSON the Hub sent, so a
 * size that is not a whole number of bytes, or a digest that is not one, is the Hub's listing of
 * the wrong kind (502 `bad_listing`), never a 500 further on.
 */
function hubFileOf(entry: {
  path: unknown;
  size: unknown;
  oid?: unknown;
  lfs?: { oid: unknown; size: unknown };
}): HubFile {
  const path = typeof entry.path === "string" ? entry.path : null;
  if (path === null) throw badListing("the Hub listed a file without a path");
  const size = entry.lfs ? entry.lfs.size : entry.size;
  if (typeof size !== "number" || !Number.isInteger(size) || size < 0)
    throw badListing(`the Hub listed ${JSON.stringify(path)} with a size that is no number of bytes`);
  if (entry.lfs) {
    const oid = typeof entry.lfs.oid === "string" ? entry.lfs.oid.toLowerCase() : "";
    if (!SHA256.test(oid))
      throw badListing(`the Hub listed ${JSON.stringify(path)} with a SHA-256 that is not 64 hex digits`);
    return { path, bytes: size, sha256: oid, gitOid: null };
  }
  const oid = typeof entry.oid === "string" ? entry.oid.toLowerCase() : "";
  if (!GIT_OID.test(oid))
    throw badListing(`the Hub listed ${JSON.stringify(path)} with a git id that is not 40 hex digits`);
  return { path, bytes: size, sha256: null, gitOid: oid };
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
  call: HubCall = {},
): Promise<void> {
  const url = resolveUrl(access, repo, commit, path);
  const deadline = AbortSignal.timeout(timeoutMsOf(access));
  const signal = call.signal ? AbortSignal.any([deadline, call.signal]) : deadline;
  try {
    const answer = await hubGet(access, url, { method: "HEAD", follow: false, signal });
    answer.body.resume();
  } catch (err) {
    if (deadline.aborted) throw new HubTimeout(url, timeoutMsOf(access) / 1000);
    throw err;
  }
}

/**
 * The header of a GGUF file at the Hub, read by Range in 2 MB pieces (never the whole file). The
 * Hub's refusals, a deadline passed and the client gone are thrown (they are the request's answer,
 * not a bad header); anything else comes back as `{ error }`, as a bad file in the mirror does.
 */
export async function headerAt(access: HubAccess, url: string, call: HubCall = {}): Promise<GgufHeader> {
  try {
    return headerOf(
      await gguf(url, { fetch: hubFetch(access, { rangesOnly: true, call: { signal: call.signal } }) }),
    );
  } catch (err) {
    if (err instanceof HubRefused || isHubTimeout(err) || call.signal?.aborted) throw err;
    return { error: describeHeaderError(err) };
  }
}
