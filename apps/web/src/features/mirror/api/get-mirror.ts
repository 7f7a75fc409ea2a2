import type { MirrorEntry } from "@llmgw/domain";
import { queryOptions, useQuery } from "@tanstack/react-query";
import { answer, api } from "../../../lib/api";

export const getMirror = (): Promise<MirrorEntry[]> => answer(api.mirror.$get());

export const mirrorQueryOptions = () => queryOptions({ queryKey: ["mirror"], queryFn: getMirror });

export const useMirror = () => useQuery(mirrorQueryOptions());
