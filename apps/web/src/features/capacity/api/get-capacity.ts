import type { Capacity } from "@llmgw/domain";
import { queryOptions, useQuery } from "@tanstack/react-query";
import { getCapacity as fetchCapacity } from "../../../lib/api";

export const getCapacity = (): Promise<Capacity> => fetchCapacity();

export const capacityQueryOptions = () => queryOptions({ queryKey: ["capacity"], queryFn: getCapacity });

export const useCapacity = () => useQuery(capacityQueryOptions());
