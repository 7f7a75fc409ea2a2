import { describe, expect, it } from "vitest";
import { markSilentNodesDown } from "../../api/src/services/liveness";
import { useCtl } from "./ctl-harness";

// `llmgw ctl node drain|resume|delete NAME` (SPEC §5), over the same API as the dashboard.

const api = useCtl();

describe("node drain and resume", () => {
  it("drains a node and resumes it, saying its state", async () => {
    const node = await api.addNode();

    const drained = await api.ctl(["node", "drain", node]);
    const resumed = await api.ctl(["node", "resume", node, "--json"]);

    expect(drained).toMatchObject({ code: 0, stdout: `${node} is draining\n` });
    expect(resumed.code).toBe(0);
    expect(JSON.parse(resumed.stdout)).toMatchObject({ name: node, state: "ready" });
  });
});

describe("node delete", () => {
  it("forgets a down node; a live one is refused with the server's reason", async () => {
    const node = await api.addNode();

    const live = await api.ctl(["node", "delete", node]);
    expect(live.code).toBe(1);
    expect(live.stderr).toContain("only a down node can be forgotten");

    const now = Date.now() + 60_000;
    api.deps.now = () => new Date(now);
    try {
      await markSilentNodesDown(api.deps);
      const gone = await api.ctl(["node", "delete", node]);
      expect(gone).toMatchObject({ code: 0, stdout: `forgot ${node} and its replicas\n` });
    } finally {
      api.deps.now = () => new Date();
    }
    expect((await api.ctl(["fleet", "--json"])).stdout).not.toContain(node);
  });
});
