import { hasControl, type NodeView } from "@llmgw/domain";
import { describe, expect, it } from "vitest";
import { printable, table } from "../src/ctl/table";
import { rowOf, useCtl } from "./ctl-harness";

// What the server says is shown, never obeyed: a node name or label that carries escape codes (from
// a server older than SPEC §4's text rule, or one in between) must not drive the operator's
// terminal. The server now refuses such names, so the answers here are rewritten on the way.

const api = useCtl();

/** Clear the screen, set the window title, then a name in red: what a hostile agent would send. */
const HOSTILE = "\u001b[2J\u001b]0;pwned\u0007\u001b[31mevil\u009b1m\u0000\r\n";

/** No control character a terminal acts on (C0, DEL, C1) is left on any line of `output`. */
const expectInert = (output: string) => {
  for (const line of output.split("\n")) expect(hasControl(line), JSON.stringify(line)).toBe(false);
};

/** The app's fetch, with `GET /fleet/nodes` answered as `rewrite` makes it. */
function rewritingNodes(rewrite: (nodes: NodeView[]) => NodeView[]) {
  return async (input: RequestInfo | URL, init?: RequestInit) => {
    const res = await api.app.request(input instanceof Request ? input : String(input), init);
    if (!String(input instanceof Request ? input.url : input).endsWith("/fleet/nodes")) return res;
    return Response.json(rewrite((await res.json()) as NodeView[]));
  };
}

describe("printable", () => {
  it("writes control characters out and keeps the rest", () => {
    expect(printable(HOSTILE)).toBe("\\x1b[2J\\x1b]0;pwned\\x07\\x1b[31mevil\\x9b1m\\x00  ");
    expect(printable("café 東京 😀 a\u00a0b")).toBe("café 東京 😀 a\u00a0b");
    expect(printable("a\ud800b\udc00")).toBe("a\ufffdb\ufffd");
  });

  it("keeps a table's columns aligned whatever a cell holds", () => {
    const out = table(
      [{ header: "NAME" }, { header: "STATE" }],
      [
        [HOSTILE, "ready"],
        ["ok", "down"],
      ],
    );
    const [header, first, second] = out.split("\n");
    expectInert(out);
    expect(first?.indexOf("ready")).toBe(header?.indexOf("STATE"));
    expect(second?.indexOf("down")).toBe(header?.indexOf("STATE"));
  });
});

describe("ctl fleet with a hostile node", () => {
  it("prints its name, engines and labels escaped, on one line", async () => {
    const name = await api.addNode({ labels: { zone: "a" }, engines: ["llamacpp"] });
    const fetch = rewritingNodes((nodes) =>
      nodes.map((n) =>
        n.name === name
          ? { ...n, name: `${name}${HOSTILE}`, engines: [HOSTILE], labels: { [HOSTILE]: HOSTILE } }
          : n,
      ),
    );

    const run = await api.ctl(["fleet"], { fetch });

    expect(run.code).toBe(0);
    expectInert(run.stdout);
    const row = rowOf(run.stdout, `${name}${printable(HOSTILE)}`.trim());
    expect(row.join(" ")).toContain("\\x1b[2J");
  });

  it("escapes a refusal's message too", async () => {
    const fetch = async () =>
      Response.json(
        { error: { code: "not_found", message: `a node called ${HOSTILE} was not found` } },
        { status: 404 },
      );

    const run = await api.ctl(["fleet"], { fetch });

    expect(run.code).toBe(1);
    expectInert(run.stderr);
    expect(run.stderr).toContain("a node called \\x1b[2J");
  });
});
