import {
  type Headroom,
  type Model,
  type ModelView,
  modeOf,
  type Node,
  type NodeView,
  type Profile,
  type Quota,
  type QuotaUsage,
  type Replica,
} from "@llmgw/domain";
import { makeModel, makeNode, makeQuota } from "@llmgw/domain/testing";

/** A model as the API lists it, with an empty headroom line unless the test says otherwise. */
type ViewOverrides = Partial<Model> & {
  need?: Partial<Profile>;
  replicas?: Replica[];
  headroom?: Partial<Headroom>;
  quota?: ModelView["quota"];
  autoscale?: ModelView["autoscale"];
};

export function makeView(overrides: ViewOverrides = {}): ModelView {
  const { replicas = [], headroom, quota, autoscale = null, ...model } = overrides;
  const base = makeModel(model);
  return {
    ...base,
    mode: modeOf(base.scaling),
    revision: base.revision ?? 1,
    rollout: null,
    replicas,
    headroom: {
      model: base.name,
      need: { memoryGB: 8, cpuCores: 4, gpus: 0 },
      current: 0,
      starting: 0,
      elsewhere: 0,
      free: 0,
      byPreemption: 0,
      quotaRemaining: null,
      total: 0,
      limitedBy: "capacity",
      victimsByClass: {},
      whyNot: [],
      nodes: [],
      ...headroom,
    },
    quota: quota ?? { owner: base.owner, remaining: null },
    autoscale,
  };
}

/** A node as the API lists it: all of it free unless the test says otherwise. */
export function makeNodeView(overrides: Partial<Node> & { usage?: NodeView["usage"] } = {}): NodeView {
  const { usage, ...node } = overrides;
  const base = makeNode(node);
  const free = { memoryGB: base.memoryGB, cpuCores: base.cpuCount, gpus: base.gpuTotal };
  return { ...base, usage: usage ?? { free, byClass: [] } };
}

/** An owner's quota with nothing used yet. */
export function makeQuotaUsage(overrides: Partial<Quota> & Pick<Quota, "owner">): QuotaUsage {
  return { ...makeQuota(overrides), used: { memoryGB: 0, cpuCores: 0, gpus: 0, replicas: 0 } };
}
