import { join } from "node:path";
import type { ReplicaFile } from "@llmgw/domain";
import { MARKER } from "./cacheSpace";
import { ReplicaRefused } from "./supervisor";

/** One file a replica needs: what the mirror says of it, where to fetch it, where it goes. */
export type Wanted = { file: ReplicaFile; url: string; dest: string };

/**
 * Where a file of a desired replica goes in the cache, `<model>/<version>/<path>` (model and
 * version from its URL, `/mirror/<model>/<version>/…`), refusing a URL off the server the agent
 * reports to (its token goes with the request) or a path that leaves its version.
 */
export function locate(file: ReplicaFile, server: string, cacheDir: string): Wanted {
  const base = new URL(server);
  const url = URL.canParse(file.url, base) ? new URL(file.url, base) : null;
  const segments = url?.pathname.split("/").slice(1).map(decodeSegment) ?? [];
  const [mirror, model, version] = segments;
  // The token goes with the request: only ever to the server the agent reports to.
  if (!url || !file.url.startsWith("/") || url.origin !== base.origin || mirror !== "mirror") {
    throw new ReplicaRefused(
      `refused file URL ${JSON.stringify(file.url.slice(0, 200))}: not a path on the mirror`,
    );
  }
  const parts = file.path.split("/");
  if (
    !model ||
    !version ||
    !plainSegment(model) ||
    !plainSegment(version) ||
    !parts.every(plainSegment) ||
    file.path === MARKER ||
    file.path.endsWith(".part")
  ) {
    throw new ReplicaRefused(
      `refused file ${JSON.stringify(file.path.slice(0, 200))}: not a plain path in a version`,
    );
  }
  return { file, url: url.href, dest: join(cacheDir, model, version, ...parts) };
}

/** The version directory a file is in. */
export function versionDirOf(wanted: Wanted): string {
  const depth = wanted.file.path.split("/").length;
  return wanted.dest.split("/").slice(0, -depth).join("/");
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return "";
  }
}

/** A directory or file name of the version: never `..`, hidden, a flag or a control character. */
export function plainSegment(name: string): boolean {
  return /^[A-Za-z0-9_][A-Za-z0-9._:+=@,-]{0,254}$/.test(name);
}
