import { gzipSync } from "node:zlib";

/** The one-file agent as `llmgw serve` built it (the agent package's bundle.ts). */
export type AgentBuild = { version: string; bytes: Uint8Array; sha256: string };

/**
 * Where the app gets the agent it hands out (SPEC §5): its version at once, the file when built.
 * `llmgw serve` gives one; an app without it answers /install/* with a 404.
 */
export type AgentSource = {
  version: string;
  /** The built file; a rejection (the build failed, logged by the source) is a 503 saying why. */
  build: () => Promise<AgentBuild>;
};

/** The agent ready to send: a strong ETag of its bytes, and their gzip for clients that take it. */
export class AgentFile {
  readonly version: string;
  readonly bytes: Uint8Array;
  readonly sha256: string;
  readonly etag: string;
  #gzip: Uint8Array | null = null;

  constructor(build: AgentBuild) {
    this.version = build.version;
    this.bytes = build.bytes;
    this.sha256 = build.sha256;
    this.etag = `"${build.sha256}"`;
  }

  get gzip(): Uint8Array {
    this.#gzip ??= gzipSync(this.bytes);
    return this.#gzip;
  }
}
