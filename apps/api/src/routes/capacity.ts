import { contract } from "@llmgw/contract";
import type { Deps } from "../deps";
import { capacityOfClasses, listClasses, listHeadroom } from "../services/readFleet";
import { handlers } from "./handlers";

export const capacityRoutes = (deps: Deps) =>
  handlers(contract.capacity, {
    headroom: () => listHeadroom({ deps }),
    byClass: () => capacityOfClasses({ deps }),
    classes: () => listClasses({ deps }),
  });
