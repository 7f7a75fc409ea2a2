import { contract } from "@llmgw/contract";
import { capacityByClass } from "@llmgw/domain";
import type { Deps } from "../deps";
import { handlers } from "./handlers";

export const capacityRoutes = (deps: Deps) =>
  handlers(contract.capacity, {
    headroom: async () => (await deps.world.snapshot()).headroomBody,
    byClass: async () => ({
      ...capacityByClass((await deps.world.snapshot()).index),
      scheduler: deps.config.scheduler,
    }),
    classes: async () => (await deps.world.snapshot()).classes,
  });
