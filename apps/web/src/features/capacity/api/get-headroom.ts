import type { Headroom } from "@llmgw/domain";
import { queryOptions, useQuery } from "@tanstack/react-query";
import { listHeadroom } from "../../../lib/api";

export const getHeadroom = (): Promise<Headroom[]> => listHeadroom();

export const headroomQueryOptions = () => queryOptions({ queryKey: ["headroom"], queryFn: getHeadroom });

export const useHeadroom = () => useQuery(headroomQueryOptions());
