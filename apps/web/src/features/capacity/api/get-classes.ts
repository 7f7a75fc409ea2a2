import type { Class } from "@llmgw/domain";
import { queryOptions, useQuery } from "@tanstack/react-query";
import { answer, api } from "../../../lib/api";

export const getClasses = (): Promise<Class[]> => answer(api.classes.$get());

/** Classes change rarely (configuration or an admin), so they stay fresh for a minute. */
export const classesQueryOptions = () =>
  queryOptions({ queryKey: ["classes"], queryFn: getClasses, staleTime: 60_000 });

export const useClasses = () => useQuery(classesQueryOptions());
