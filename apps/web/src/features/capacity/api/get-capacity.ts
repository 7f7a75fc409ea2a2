import type { Capacity } from "@llmgw/domain";
import { queryOptions, useQuery } from "@tanstack/react-query";
import { answer, api } from "../../../lib/api";

export const getCapacity = (): Promise<Capacity> => answer(api.capacity.$get());

export const capacityQueryOptions = () => queryOptions({ queryKey: ["capacity"], queryFn: getCapacity });

export const useCapacity = () => useQuery(capacityQueryOptions());
