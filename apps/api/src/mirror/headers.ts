import type { GgufHeader } from "@llmgw/domain";
import type { DiskEntry } from "./disk";

interface CachedHeader {
  size: number;
  mtimeMs: number;
  header: Promise<GgufHeader>;
}

/**
 * The headers of the files that describe versions. Weights files are gigabytes and change only by
 * being replaced, so a header is read again only when the file's size or modification time says
 * it is a different file.
 */
export class HeaderCache {
  readonly #headers = new Map<string, CachedHeader>();

  constructor(private readonly readHeader: (path: string) => Promise<GgufHeader>) {}

  headerFor(file: DiskEntry): Promise<GgufHeader> {
    const hit = this.#headers.get(file.path);
    if (hit && hit.size === file.size && hit.mtimeMs === file.mtimeMs) return hit.header;
    const header = this.readHeader(file.path).catch((err: unknown) => ({ error: String(err) }));
    this.#headers.set(file.path, { size: file.size, mtimeMs: file.mtimeMs, header });
    return header;
  }

  /** Forgets the headers of files no version is described by any more. */
  keepOnly(inUse: ReadonlySet<string>): void {
    for (const path of this.#headers.keys()) if (!inUse.has(path)) this.#headers.delete(path);
  }
}
