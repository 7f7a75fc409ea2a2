import { type Headroom, type Model, type ModelView, modeOf, type Profile, type Replica } from "@llmgw/domain";
import { makeModel } from "@llmgw/domain/testing";

/** A model as the API lists it, with an empty headroom line unless the test says otherwise. */
type ViewOverrides = Partial<Model> & {
  need?: Partial<Profile>;
  replicas?: Replica[];
  headroom?: Partial<Headroom>;
  quota?: ModelView["quota"];
};

export function makeView(overrides: ViewOverrides = {}): ModelView {
  const { replicas = [], headroom, quota, ...model } = overrides;
  const base = makeModel(model);
  return {
    ...base,
    mode: modeOf(base.scaling),
    replicas,
    headroom: {
      model: base.name,
      need: { memoryGB: 8, cpuCores: 4, gpus: 0 },
      current: 0,
      free: 0,
      byPreemption: 0,
      quotaRemaining: null,
      total: 0,
      limitedBy: "capacity",
      victimsByClass: {},
      nodes: [],
      ...headroom,
    },
    quota: quota ?? { owner: base.owner, remaining: null },
  };
}
