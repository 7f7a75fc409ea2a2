import type { MirrorEntry } from "@llmgw/domain";
import type { QueryClient } from "@tanstack/react-query";
import type { LiveStream } from "../../lib/live";
import { mirrorQueryOptions } from "./api/get-mirror";
import { mirrorInfoQueryOptions } from "./api/get-mirror-info";
import { pullsQueryOptions, withPull } from "./api/get-pulls";
import { notePullProgress } from "./pull-rate";

/**
 * A version's files grow while they download: each event replaces that version in the list. A
 * pull's progress and end (`mirror.pull`, at most 4 a second) replace it in the pulls.
 */
export function subscribeMirror(client: QueryClient, live: LiveStream): () => void {
  const offPulls = live.on("mirror.pull", (pull) => {
    notePullProgress(pull);
    client.setQueryData(pullsQueryOptions().queryKey, (list) => withPull(list, pull));
  });
  const offVersions = live.on("mirror.changed", (event) => {
    // A file moved into place may be one the info listed as misplaced.
    void client.invalidateQueries({ queryKey: mirrorInfoQueryOptions().queryKey });
    const same = (e: MirrorEntry) => e.model === event.model && e.version === event.version;
    client.setQueryData(mirrorQueryOptions().queryKey, (list) => {
      if (!list) return list;
      if ("removed" in event) return list.filter((e) => !same(e));
      if (!list.some(same)) return [...list, event].sort(byModelAndVersion);
      return list.map((e) => (same(e) ? event : e));
    });
  });
  return () => {
    offPulls();
    offVersions();
  };
}

function byModelAndVersion(a: MirrorEntry, b: MirrorEntry): number {
  return a.model.localeCompare(b.model) || a.version.localeCompare(b.version);
}
