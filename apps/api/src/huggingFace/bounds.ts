import { AppError } from "../errors";

// SPEC §10.5a: what llmgw reads from a Hub is bounded, whatever it sends. The Hub (or whatever
// answers at HF_ENDPOINT) is not trusted: a 261 kB gzip listing inflating to 256 MiB, a `Link:
// rel=next` to itself, a 128 MiB answer to a 2 MB range each cost memory or time without a bound.

export const HUB_BOUNDS = {
  /** A listing (every page of it, and the revision's info) read at most this far, inflated. */
  listingBytes: 64 * 1024 * 1024,
  /** A listing that runs longer is refused (the Hub pages it 1,000 files at a time). */
  pages: 1000,
  /** A dry run offers at most this many quantisations, each a header read. */
  quants: 64,
  /** Header reads at once in a dry run. */
  headersAtOnce: 4,
} as const;

/** `huggingface.timeoutSeconds` and `huggingface.idleSeconds` when llmgw.yaml does not set them. */
export const DEFAULT_HUB_TIMEOUT_SECONDS = 60;
export const DEFAULT_HUB_IDLE_SECONDS = 30;

/** A listing that breaks a bound: the Hub's answer is of the wrong kind (502 `bad_listing`). */
export function badListing(message: string): AppError {
  return new AppError({ code: "bad_listing", message });
}

/** What a call to the Hub counts its pages and bytes against. */
export interface ReadBudget {
  /** Before asking for `url`: throws when it may not be asked. */
  page(url: string): void;
  read(body: ReadableStream<Uint8Array>): ReadableStream<Uint8Array>;
}

/**
 * What one plan or dry run has read of the Hub's listings: the bytes inflated, and the pages
 * asked for, so a page named twice or the 1,001st is refused before it is asked.
 */
export class ListingBudget implements ReadBudget {
  #bytes = 0;
  readonly #pages = new Set<string>();

  page(url: string): void {
    if (this.#pages.has(url))
      throw badListing(`the Hub's listing names a page it already sent (${pathOf(url)})`);
    if (this.#pages.size >= HUB_BOUNDS.pages)
      throw badListing(`the Hub's listing runs past ${HUB_BOUNDS.pages} pages`);
    this.#pages.add(url);
  }

  /** The same bytes, for a call that is not a page of the listing (the revision's info). */
  notPages(): ReadBudget {
    return { page: () => undefined, read: (body) => this.read(body) };
  }

  /** The body, counted against the listing's bytes as it is read: over the bound, it errors. */
  read(body: ReadableStream<Uint8Array>): ReadableStream<Uint8Array> {
    return capped(body, (n) => {
      this.#bytes += n;
      return this.#bytes > HUB_BOUNDS.listingBytes
        ? badListing(`the Hub's listing is over ${HUB_BOUNDS.listingBytes / 1024 / 1024} MB`)
        : null;
    });
  }
}

/** The body, read no further than `limit` bytes: one more is an error, and the rest is not read. */
export function rangeCapped(body: ReadableStream<Uint8Array>, limit: number, what: string) {
  let got = 0;
  return capped(body, (n) => {
    got += n;
    return got > limit ? new Error(`${what} sent more than the ${limit} bytes asked`) : null;
  });
}

/** Passes chunks on while `over` finds nothing wrong; the first error ends it and cancels the source. */
function capped(
  body: ReadableStream<Uint8Array>,
  over: (bytes: number) => Error | null,
): ReadableStream<Uint8Array> {
  return body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        const err = over(chunk.byteLength);
        if (err) controller.error(err);
        else controller.enqueue(chunk);
      },
    }),
  );
}

function pathOf(url: string): string {
  try {
    const u = new URL(url);
    return `${u.pathname}${u.search}`.slice(0, 200);
  } catch {
    return url.slice(0, 200);
  }
}
