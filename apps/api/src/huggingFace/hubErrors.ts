import { AppError } from "../errors";
import { type HubAccess, HubRefused, isHubTimeout, timeoutMsOf } from "./hubHttp";

// SPEC §10.5: what the Hub said, in the operator's words and llmgw's codes. The Hub names its
// refusals in `X-Error-Code` whatever the status (it answers 401 for a repo that does not exist,
// so a name cannot be probed); a mirror of it may send only the status, which is read second.

export interface PullContext {
  access: HubAccess;
  repo: string;
  revision: string;
}

const TOKEN_HINT =
  "set HF_TOKEN (or huggingface.token in llmgw.yaml) to a token of an account that has access";

/** The one error a pull's caller gets for what went wrong talking to the Hub. */
export function hubError(err: unknown, at: PullContext): AppError {
  if (err instanceof AppError) return err;
  if (err instanceof HubRefused) return refusal(err, at);
  // SPEC §10.5a: every call has a deadline, `huggingface.timeoutSeconds`.
  if (isHubTimeout(err)) {
    return new AppError({
      code: "hub_timeout",
      message: `the Hub at ${shown(at.access)} did not answer within ${timeoutMsOf(at.access) / 1000} s (huggingface.timeoutSeconds)`,
    });
  }
  const cause = err instanceof Error ? (causeOf(err) ?? err.message) : String(err);
  return new AppError({
    code: "hub_unreachable",
    message: `cannot reach the Hub at ${shown(at.access)}: ${cause}`,
  });
}

function refusal(err: HubRefused, { access, repo, revision }: PullContext): AppError {
  const page = `${shown(access)}/${repo}`;
  switch (err.errorCode) {
    case "RepoNotFound":
      return repoNotFound(repo, access);
    case "RevisionNotFound":
      return new AppError({ code: "repo_not_found", message: `${repo} has no revision ${revision}` });
    case "GatedRepo":
      return gated(repo, page, access);
    case "EntryNotFound":
      return new AppError({
        code: "no_matching_files",
        message: `${repo} lists a file it does not have: ${err.message}`,
      });
  }
  if (err.status === 401 || err.status === 403) {
    return access.token
      ? new AppError({
          code: "gated",
          message: `the Hub refused the token for ${repo} (${err.status}): ${TOKEN_HINT}`,
        })
      : gated(repo, page, access);
  }
  if (err.status === 404) return repoNotFound(repo, access);
  return new AppError({
    code: "hub_unreachable",
    message: `${err.message}${err.hubMessage ? `: ${err.hubMessage}` : ""}`,
  });
}

function repoNotFound(repo: string, access: HubAccess): AppError {
  // Without a token the Hub cannot tell a private repo from a missing one, and neither can llmgw.
  const hint = access.token ? "" : " (a private repo needs HF_TOKEN)";
  return new AppError({ code: "repo_not_found", message: `no repo ${repo} on ${shown(access)}${hint}` });
}

function gated(repo: string, page: string, access: HubAccess): AppError {
  const why = access.token
    ? `${repo} is gated and the token in HF_TOKEN has no access to it: accept its terms at ${page} with that account`
    : `${repo} is gated: accept its terms at ${page}, then ${TOKEN_HINT}`;
  return new AppError({ code: "gated", message: why });
}

/**
 * The endpoint as a message may quote it: a pull's error is stored and shown to viewers, so a
 * user and password in HF_ENDPOINT (a proxy's) never reach it.
 */
function shown(access: HubAccess): string {
  try {
    const url = new URL(access.endpoint);
    url.username = "";
    url.password = "";
    return url.href.replace(/\/+$/, "");
  } catch {
    return "the configured Hub";
  }
}

/** The HTTP client hides the reason (ECONNREFUSED, a DNS failure) in the error's cause. */
function causeOf(err: Error): string | null {
  const cause: unknown = err.cause;
  if (cause instanceof Error)
    return "code" in cause && typeof cause.code === "string" ? cause.code : cause.message;
  return null;
}
