/** What a cached build was made from: each input's `size:mtimeMs` ("missing" when gone). */
export type Stamps = Record<string, string>;

export function stampsOf(files: readonly string[], root?: string): Stamps;
export function freshManifest<M extends { stamps: Stamps }>(
  path: string,
  current: (manifest: M) => boolean,
  root?: string,
): M | null;
export function keepManifest(path: string, manifest: { stamps: Stamps }, started: number): boolean;
export function removeOldBuilds(dir: string, prefix: string, current: string): void;
