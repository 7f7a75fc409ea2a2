import { createHash, randomBytes, timingSafeEqual } from "node:crypto";

/** Tokens start with this, so one pasted into a chat or a repository is recognisable (and scannable). */
export const TOKEN_PREFIX = "llmgw_";

export { MAX_SECRET_LENGTH } from "@llmgw/contract";

/** 32 random bytes, base64url: 256 bits, so guessing is hopeless and no lockout is needed for bearers. */
export function newToken(): string {
  return `${TOKEN_PREFIX}${randomBytes(32).toString("base64url")}`;
}

/** A session cookie's value: as random as a token, and never a token (no prefix). */
export function newSessionId(): string {
  return randomBytes(32).toString("base64url");
}

/** Lower-case hex SHA-256 of the UTF-8 text: what the store and llmgw.yaml keep instead of secrets. */
export function sha256Hex(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("hex");
}

/**
 * Compares two hex digests in constant time, so the time taken says nothing about how many leading
 * digits of a stored hash a guess got right. Anything not 64 hex digits is simply unequal.
 */
export function sameDigest(a: string, b: string): boolean {
  const left = digestBytes(a);
  const right = digestBytes(b);
  return left !== null && right !== null && timingSafeEqual(left, right);
}

function digestBytes(hex: string): Buffer | null {
  return /^[0-9a-f]{64}$/.test(hex) ? Buffer.from(hex, "hex") : null;
}
