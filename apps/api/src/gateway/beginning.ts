// A prompt's beginning, as routing by cache reads it (SPEC §7.1a): the body's own bytes of
// `messages` (or `prompt`), cut into blocks and hashed in a chain, so two requests whose prompts
// begin alike share their first block keys. The bytes are the client's serialisation, not a
// re-encoding: a conversation sent by one client keeps the same bytes turn after turn, and reading
// them costs one native search and one pass over at most READ_BYTES, never a parse.

/** At most this much of the prompt is read (SPEC §7.1a: the first 64 kB of its text). */
export const READ_BYTES = 64 * 1024;
/** One block of the chain: a match is counted in whole blocks. */
export const BLOCK_BYTES = 1024;
/**
 * The deterministic choice's key: the prompt's first 4 kB. SPEC §7.1a keys it on the first message;
 * a first message shorter than this is a preamble many tenants share (a platform's instructions
 * before each tenant's own), and keying on it alone would send every tenant's unseen beginning to
 * one replica. A first message of 4 kB or more is keyed on exactly as the spec says.
 */
export const FIRST_KEY_BYTES = 4096;

/** What routing knows of a request's prompt. */
export type Beginning = {
  /** Chained hashes of each whole block of the beginning read, first block first. */
  blocks: number[];
  /** The chain's key at the prompt's first 4 kB (FIRST_KEY_BYTES): where an unseen beginning goes. */
  firstKey: number;
};

const MESSAGES = Buffer.from('"messages"');
const PROMPT = Buffer.from('"prompt"');

/**
 * The beginning of the prompt in a JSON body, or null when it has none or less than one block of
 * it: re-reading a prompt that short costs an engine nothing worth waiting for, so load decides. In valid JSON the bytes
 * `"messages"` followed by a colon are a member's key (a quote inside a string is escaped); a
 * nested key of that name before the top-level one only costs this request its cache preference.
 */
export function beginningOf(body: Uint8Array): Beginning | null {
  const bytes = Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  const chat = valueAfter(bytes, MESSAGES);
  const start = chat ?? valueAfter(bytes, PROMPT);
  if (start === null) return null;
  const end = Math.min(bytes.byteLength, start + READ_BYTES);
  if (end - start < BLOCK_BYTES) return null;
  const blocks = blockChain(bytes, start, end);
  // The chain's key at 4 kB stands for the whole first 4 kB (or all of a shorter beginning's blocks).
  const firstKey = blocks[Math.min(blocks.length, FIRST_KEY_BYTES / BLOCK_BYTES) - 1] ?? 0;
  return { blocks, firstKey };
}

/** Where the value of the member named `key` starts (after its colon), or null. */
function valueAfter(bytes: Buffer, key: Buffer): number | null {
  let at = bytes.indexOf(key);
  while (at !== -1) {
    let i = at + key.byteLength;
    while (isSpace(bytes[i])) i++;
    if (bytes[i] === 0x3a) {
      i++;
      while (isSpace(bytes[i])) i++;
      return i < bytes.byteLength ? i : null;
    }
    at = bytes.indexOf(key, at + 1);
  }
  return null;
}

/**
 * The beginning read, copied to a 4-byte-aligned scratch buffer (one native copy of at most 64 kB)
 * so the hash reads it as 32-bit words: a typed array's element loads, with no bounds checks or
 * byte assembly per step as `readInt32LE` does. Words are read in the platform's byte order, as
 * every x86 and ARM host has it (little-endian), so processes on any of them hash a prompt alike.
 */
const SCRATCH = new Uint8Array(READ_BYTES);
const WORDS = new Int32Array(SCRATCH.buffer);
const WORDS_PER_BLOCK = BLOCK_BYTES / 4;

/**
 * Two multiplicative hashes (FNV-1a's prime, different seeds) over the beginning four bytes at a
 * time, chained and recorded at each block's end: 52 bits a block, safe as a number and a Map key.
 * Four bytes a step because this runs on every request: a 64 kB prompt is 16k steps.
 */
function blockChain(bytes: Uint8Array, start: number, end: number): number[] {
  const count = Math.floor((end - start) / BLOCK_BYTES);
  SCRATCH.set(bytes.subarray(start, start + count * BLOCK_BYTES));
  const blocks = new Array<number>(count);
  let a = 0x811c9dc5;
  let b = 0x050c5d1f;
  let w = 0;
  for (let block = 0; block < count; block++) {
    const last = w + WORDS_PER_BLOCK;
    for (; w < last; w++) {
      const word = WORDS[w] as number;
      a = Math.imul(a ^ word, 0x01000193);
      b = Math.imul(b ^ word, 0x01000193) ^ (b >>> 15);
    }
    blocks[block] = (a >>> 0) * 0x100000 + ((b >>> 0) & 0xfffff);
  }
  return blocks;
}

export function hashOf(bytes: Uint8Array, start: number, end: number): number {
  let h = 0x811c9dc5;
  for (let i = start; i < end; i++) h = Math.imul(h ^ (bytes[i] as number), 0x01000193);
  return h >>> 0;
}

const isSpace = (c: number | undefined) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
