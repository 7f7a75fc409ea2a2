import type { MirrorEntry } from "@llmgw/domain";
import { queryOptions, useQuery } from "@tanstack/react-query";
import { listMirror } from "../../../lib/api";

export const getMirror = (): Promise<MirrorEntry[]> => listMirror();

export const mirrorQueryOptions = () => queryOptions({ queryKey: ["mirror"], queryFn: getMirror });

export const useMirror = () => useQuery(mirrorQueryOptions());
