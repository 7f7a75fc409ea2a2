import type { Pull } from "@llmgw/domain";
import type { Deps } from "../deps";
import { notFound } from "../errors";

/** `GET /mirror/pulls`: the pulls, newest first (SPEC §10.4). */
export function listPulls({ deps }: { deps: Deps }): Promise<Pull[]> {
  return deps.store.pulls.list();
}

/** `GET /mirror/pulls/:id`: one pull and how far it is. */
export async function getPull({ deps, input }: { deps: Deps; input: { id: string } }): Promise<Pull> {
  const pull = await deps.store.pulls.get(input.id);
  if (!pull) throw notFound(`a pull with id ${input.id}`);
  return pull;
}
