import { randomUUID } from "node:crypto";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { Pull } from "@llmgw/domain";
import { describe, expect, it } from "vitest";
import { useApi } from "../harness";
import { randomLfsFile } from "../kit";
import { ended, usePullKit } from "./pull-kit";

// SPEC §10.5a: a pull on record that the disk refuses fails, with its reason, and nothing else.
// These are the issue's own crashes: a pull stored with a name the file system refuses
// (ENAMETOOLONG, from before names were checked), and one whose model path turned into a file
// (ENOTDIR) after it was queued. Each used to end the process from the runner's cleanup.

const api = useApi();
const kit = usePullKit(api);
let sequence = 0;

/** A queued pull written to the store as it is, past the checks a POST makes. */
async function storedPull(path: string, bytes: number): Promise<Pull> {
  const n = ++sequence;
  const repo = `stand-in/Failing-${n}-GGUF`;
  const { commit } = await kit.hub.addRepo({ repo, files: [randomLfsFile(path, bytes)] });
  const pull: Pull = {
    id: randomUUID(),
    repo,
    revision: "main",
    commit,
    model: `failing-${n}-gguf`,
    version: "Q4_K_M",
    state: "queued",
    files: [{ path, bytes, bytesDone: 0, sha256: "0".repeat(64), gitOid: null }],
    bytesDone: 0,
    bytesTotal: bytes,
    error: null,
    at: new Date().toISOString(),
    by: "test",
  };
  const inserted = await api.deps.store.pulls.insert(pull, randomUUID());
  if (!inserted) throw new Error("the pull was not stored");
  return inserted;
}

describe("a pull the disk refuses", () => {
  it("with a name too long for the file system fails with the disk's reason", async () => {
    const pull = await storedPull(`${"L".repeat(296)}-Q4_K_M.gguf`, 1000);
    api.control.pulls.nudge(api.deps);
    const done = await ended(api, pull.id);
    expect(done.state).toBe("failed");
    expect(done.error).toContain("ENAMETOOLONG");
    // The runner is free for the next pull: the server goes on.
    expect((await api.client.mirror.pulls.$get()).status).toBe(200);
  });

  it("whose model path became a file after it was queued fails as path_taken says, the file untouched", async () => {
    const pull = await storedPull(`Taken-${sequence + 1}-Q4_K_M.gguf`, 1000);
    await writeFile(join(api.mirrorDir, pull.model), "not a folder\n");
    api.control.pulls.nudge(api.deps);
    const done = await ended(api, pull.id);
    expect(done.state).toBe("failed");
    expect(done.error).toContain("is a file, not a folder");
  });
});
