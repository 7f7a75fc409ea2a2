import type { MirrorInfo } from "@llmgw/domain";
import { queryOptions, useQuery } from "@tanstack/react-query";
import { answer, api } from "../../../lib/api";

export const getMirrorInfo = (): Promise<MirrorInfo> => answer(api.mirror.info.$get());

/**
 * The mirror's directory and misplaced files. A misplaced file makes no `mirror.changed` (the scan
 * passes over it), so while a page shows this it is asked again every few seconds.
 */
export const mirrorInfoQueryOptions = () =>
  queryOptions({ queryKey: ["mirror-info"], queryFn: getMirrorInfo, refetchInterval: 5000 });

export const useMirrorInfo = () => useQuery(mirrorInfoQueryOptions());
