import type { MirrorVersion } from "@llmgw/domain";
import { keyOf } from "./watch";

/** A version as a scan found it, with the paths of its complete files. */
export interface ScannedVersion {
  view: MirrorVersion;
  complete: readonly { name: string; path: string }[];
}

/**
 * The mirror as of the last scan, kept in memory for the listing and the heartbeat's lookups, and
 * patched in place as digests come in between scans.
 */
export class LastScan {
  private versions = new Map<string, MirrorVersion>();
  /** Where each complete file shows (a path can show twice, through a symlinked directory). */
  private shownAt = new Map<string, { key: string; file: string }[]>();

  replace(found: readonly ScannedVersion[]): void {
    this.versions = new Map(found.map(({ view }) => [keyOf(view), view]));
    this.shownAt = new Map();
    for (const { view, complete } of found) {
      for (const { name, path } of complete) {
        const at = this.shownAt.get(path) ?? [];
        at.push({ key: keyOf(view), file: name });
        this.shownAt.set(path, at);
      }
    }
  }

  /** The complete files' paths: what a digest is worth keeping for. */
  paths(): Set<string> {
    return new Set(this.shownAt.keys());
  }

  list(): MirrorVersion[] {
    return [...this.versions.values()];
  }

  find(model: string, version: string): MirrorVersion | null {
    return this.versions.get(keyOf({ model, version })) ?? null;
  }

  /** Puts a digest just computed on the file at `path`; new objects, so what a scan returned stays as it was. */
  digested(path: string, sha256: string): void {
    for (const { key, file } of this.shownAt.get(path) ?? []) {
      const version = this.versions.get(key);
      if (!version) continue;
      const files = version.files.map((f) =>
        f.file === file && f.state === "complete" ? { ...f, sha256 } : f,
      );
      this.versions.set(key, { ...version, files });
    }
  }
}
