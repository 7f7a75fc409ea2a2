import { createHash } from "node:crypto";
import type { Queryable } from "./db";
import { LOCK } from "./migrations";

/**
 * Waits for the advisory lock on `key`, then holds it until `tx` commits or rolls back: every
 * process sharing the database waits at the same place for the same key. Two-part locks
 * (`LOCK.keys`, a hash of the key) never meet the one-part locks of LOCK. Two keys whose hashes
 * collide only wait for each other, which costs time and never correctness.
 * On PGlite (one connection, one transaction at a time) it is granted at once.
 */
export async function lockKey(tx: Queryable, key: string): Promise<void> {
  await tx.query("select pg_advisory_xact_lock($1::int4, $2::int4)", [LOCK.keys, keyHash(key)]);
}

/** The key as a signed 32-bit integer: the first four bytes of its SHA-256, the same in every process. */
export function keyHash(key: string): number {
  return createHash("sha256").update(key).digest().readInt32BE(0);
}
