import type { MirrorInfo } from "@llmgw/domain";
import { queryOptions, useQuery } from "@tanstack/react-query";
import { answer, api } from "../../../lib/api";

export const getMirrorInfo = (): Promise<MirrorInfo> => answer(api.mirror.info.$get());

/** How often a page that needs the misplaced files asks for them again. */
const POLL_MS = 5000;

export const mirrorInfoQueryOptions = () =>
  queryOptions({ queryKey: ["mirror-info"], queryFn: getMirrorInfo });

/**
 * The mirror's directory and misplaced files. A misplaced file makes no `mirror.changed` (the scan
 * passes over it), so with `poll` it is asked again every few seconds, never while the tab is
 * hidden; `enabled: false` asks nothing (a page that shows none of it now).
 */
export const useMirrorInfo = ({ poll, enabled = true }: { poll: boolean; enabled?: boolean }) =>
  useQuery({
    ...mirrorInfoQueryOptions(),
    enabled,
    refetchInterval: poll ? POLL_MS : false,
    refetchIntervalInBackground: false,
  });
