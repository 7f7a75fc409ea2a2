import { queryOptions, useQuery } from "@tanstack/react-query";
import { answer, api } from "../../../lib/api";

export const getCapacity = () => answer(api.capacity.$get());

export const capacityQueryOptions = () => queryOptions({ queryKey: ["capacity"], queryFn: getCapacity });

export const useCapacity = () => useQuery(capacityQueryOptions());
