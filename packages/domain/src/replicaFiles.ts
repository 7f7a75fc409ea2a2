import type { MirrorVersion, ReplicaFile } from "./schemas";
import { mirrorUrl } from "./servePlan";

/**
 * The mirrored version a model's source names (SPEC §8.1), or null for a source outside the
 * mirror. Recognised by its path, `/mirror/<model>/<version>/<file>` or the version's directory
 * `/mirror/<model>/<version>/` (what the serve wizard writes), whatever the host: the configured
 * base URL, a name the agents use for this server and a load balancer's all name the same files.
 */
export function mirrorVersionOf(source: string): { model: string; version: string } | null {
  let path: string;
  try {
    // A base for a bare path; an absolute URL ignores it.
    path = new URL(source, "http://source.invalid").pathname;
  } catch {
    return null;
  }
  const match = /^\/mirror\/([^/]+)\/([^/]+)(?:\/[^/]*)?$/.exec(path);
  if (!match?.[1] || !match[2]) return null;
  const model = decoded(match[1]);
  const version = decoded(match[2]);
  return model && version ? { model, version } : null;
}

/**
 * What an agent downloads for a replica of a mirrored version: every complete file of it (a source
 * naming one file of a split GGUF needs its other parts beside it), with its size and its SHA-256
 * once the mirror has computed it. Files still downloading are left out.
 *
 * `url` is an absolute path on this server, `/mirror/<model>/<version>/<file>`: the agent resolves
 * it against the server it reports to, which is the one address it is sure reaches this server
 * (the model's source may name another).
 */
export function replicaFilesOf(version: MirrorVersion): ReplicaFile[] {
  return version.files
    .filter((f) => f.state === "complete")
    .map((f) => ({
      url: mirrorUrl("", version.model, version.version, f.file),
      path: f.file,
      bytes: f.bytesDone,
      sha256: f.sha256,
    }));
}

function decoded(segment: string): string | null {
  try {
    const name = decodeURIComponent(segment);
    return name.includes("/") ? null : name;
  } catch {
    return null;
  }
}
