import type { UseQueryResult } from "@tanstack/react-query";
import type { ReactNode } from "react";
import { LoadError, Loading } from "./Status";

type Props<T> = { query: UseQueryResult<T>; what: string; children: (data: T) => ReactNode };

/** A query's data once it is here; its loading line or its error (with a retry) until then. */
export function Loaded<T>({ query, what, children }: Props<T>) {
  if (query.data !== undefined) return <>{children(query.data)}</>;
  if (query.isError) return <LoadError what={what} error={query.error} retry={() => void query.refetch()} />;
  return <Loading what={what} />;
}
