import { beforeAll, describe, expect, it } from "vitest";
import { cells, fresh, rowOf, useCtl } from "./ctl-harness";

// `llmgw ctl token …`: an admin makes, lists and revokes tokens. The server starts without tokens;
// the first `token create` (an admin's) turns them on, so every later command passes --token.

const api = useCtl();
let root = "";
/** `token create` of a fresh name as the admin, with the role and flags a test is about. */
const createAs = (role: string, ...flags: string[]) =>
  api.ctl(["token", "create", "--name", fresh("x"), "--role", role, ...flags, "--token", root]);

const tokenOf = (stdout: string) => /^token +(llmgw_\S+)$/m.exec(stdout)?.[1] ?? "";

beforeAll(async () => {
  const run = await api.ctl(["token", "create", "--name", "root", "--role", "admin"]);
  expect(run.code, run.stderr).toBe(0);
  root = tokenOf(run.stdout);
});

describe("llmgw ctl token create", () => {
  it("prints the new token once, and says so on stderr", async () => {
    const name = fresh("ci");
    const run = await api.ctl(["token", "create", "--name", name, "--role", "viewer", "--token", root]);

    expect(run.code).toBe(0);
    expect(rowOf(run.stdout, "name")).toEqual(["name", name]);
    expect(rowOf(run.stdout, "role")).toEqual(["role", "viewer"]);
    expect(tokenOf(run.stdout)).toMatch(/^llmgw_[A-Za-z0-9_-]{43}$/);
    expect(run.stderr).toBe("Store the token now: it is not shown again, and cannot be recovered.\n");
    const list = await api.ctl(["token", "list", "--token", tokenOf(run.stdout)]);
    expect(list.code).toBe(1);
    expect(list.stderr).toContain("this needs the admin role");
  });

  it("--json prints the API's answer, secret included, and nothing on stderr", async () => {
    const name = fresh("agent");
    const run = await api.ctl([
      "token",
      "create",
      "--name",
      name,
      "--role",
      "agent",
      "--json",
      "--token",
      root,
    ]);

    expect(run.stderr).toBe("");
    expect(JSON.parse(run.stdout)).toMatchObject({
      name,
      role: "agent",
      origin: "runtime",
      createdBy: "root",
    });
  });

  it("needs --name and a known --role (usage, exit 2), and the server's word on a taken name", async () => {
    expect((await api.ctl(["token", "create", "--role", "viewer", "--token", root])).code).toBe(2);
    const wrongRole = await api.ctl(["token", "create", "--name", "x", "--role", "root", "--token", root]);
    expect(wrongRole).toMatchObject({ code: 2, stdout: "" });
    expect(wrongRole.stderr).toContain("--role: expected one of viewer, operator, admin, agent, client");

    const taken = await api.ctl(["token", "create", "--name", "root", "--role", "viewer", "--token", root]);
    expect(taken).toMatchObject({ code: 1, stdout: "" });
    expect(taken.stderr).toContain("a token called root already exists");
  });
});

describe("llmgw ctl token create --role client", () => {
  it("prints the models and limits with the token", async () => {
    const name = fresh("app");
    const run = await api.ctl([
      "token",
      "create",
      "--name",
      name,
      "--role",
      "client",
      "--models",
      "chat, embed",
      "--rpm",
      "120",
      "--concurrency",
      "2",
      "--tokens-per-day",
      "20000",
      "--token",
      root,
    ]);

    expect(run.code, run.stderr).toBe(0);
    expect(rowOf(run.stdout, "role")).toEqual(["role", "client"]);
    expect(rowOf(run.stdout, "models")).toEqual(["models", "chat, embed"]);
    expect(rowOf(run.stdout, "limits")).toEqual(["limits", "120/min, 2 at once, 20000 tokens/day"]);
    expect(tokenOf(run.stdout)).toMatch(/^llmgw_/);
  });

  it("--json has every field, with the server's nulls", async () => {
    const name = fresh("app");
    const run = await api.ctl([
      "token",
      "create",
      "--name",
      name,
      "--role",
      "client",
      "--rpm",
      "5",
      "--json",
      "--token",
      root,
    ]);

    expect(JSON.parse(run.stdout)).toMatchObject({
      name,
      role: "client",
      models: null,
      requestsPerMinute: 5,
      concurrency: null,
      node: null,
    });
  });

  it("refuses a limit that is not a whole number (usage), and limits on another role (the server's word)", async () => {
    const notNumber = await createAs("client", "--rpm", "1.5");
    expect(notNumber).toMatchObject({ code: 2, stdout: "" });
    expect(notNumber.stderr).toContain('--rpm: expected a whole number, got "1.5"');
    const empty = await createAs("client", "--models", ", ");
    expect(empty).toMatchObject({ code: 2, stdout: "" });

    const viewer = await createAs("viewer", "--concurrency", "2");
    expect(viewer).toMatchObject({ code: 1, stdout: "" });
    expect(viewer.stderr).toContain("concurrency: only a client token has a concurrency limit");
    const budget = await createAs("operator", "--tokens-per-day", "100");
    expect(budget).toMatchObject({ code: 1, stdout: "" });
    expect(budget.stderr).toContain("tokensPerDay: only a client token has a budget of tokens");
    const zero = await createAs("client", "--concurrency", "0");
    expect(zero.code).toBe(1);
    expect(zero.stderr).toContain("concurrency: at least 1");
  });
});

describe("llmgw ctl token list", () => {
  it("shows name, role, origin, creator and last use; never a secret", async () => {
    const name = fresh("lister");
    const made = await api.ctl(["token", "create", "--name", name, "--role", "operator", "--token", root]);

    const run = await api.ctl(["token", "list", "--token", root]);

    expect(run.code).toBe(0);
    expect(cells(run.stdout.split("\n")[0] ?? "")).toEqual([
      "NAME",
      "ROLE",
      "NODE",
      "MODELS",
      "LIMITS",
      "TODAY",
      "ORIGIN",
      "CREATED (UTC)",
      "BY",
      "LAST-USED (UTC)",
    ]);
    expect(rowOf(run.stdout, name)).toEqual([
      name,
      "operator",
      "-",
      "-",
      "-",
      "-",
      "runtime",
      expect.any(String),
      "root",
      "never",
    ]);
    expect(rowOf(run.stdout, "root")[9]).not.toBe("never");
    expect(run.stdout).not.toContain(tokenOf(made.stdout));
    expect(run.stdout).not.toContain(root);
  });

  it("creates an agent token for a node, and lists the node it speaks for", async () => {
    const name = fresh("rack");
    const made = await api.ctl([
      "token",
      "create",
      "--name",
      name,
      "--role",
      "agent",
      "--node",
      "rack-9",
      "--token",
      root,
    ]);
    expect(made.code).toBe(0);
    expect(made.stdout).toContain("rack-9");

    const run = await api.ctl(["token", "list", "--token", root]);

    expect(rowOf(run.stdout, name).slice(0, 3)).toEqual([name, "agent", "rack-9"]);
  });

  it("shows a client token's models and limits: all and none when it has none, a long list cut", async () => {
    const limited = fresh("app");
    const open = fresh("open");
    const wide = fresh("wide");
    const create = (name: string, ...flags: string[]) =>
      api.ctl(["token", "create", "--name", name, "--role", "client", ...flags, "--token", root]);
    expect((await create(limited, "--models", "chat,embed", "--rpm", "60", "--concurrency", "4")).code).toBe(
      0,
    );
    expect((await create(open)).code).toBe(0);
    expect((await create(wide, "--models", "a,b,c,d,e")).code).toBe(0);

    const run = await api.ctl(["token", "list", "--token", root]);

    expect(rowOf(run.stdout, limited).slice(0, 5)).toEqual([
      limited,
      "client",
      "-",
      "chat, embed",
      "60/min, 4 at once",
    ]);
    expect(rowOf(run.stdout, open).slice(0, 5)).toEqual([open, "client", "-", "all", "none"]);
    expect(rowOf(run.stdout, wide).slice(3, 5)).toEqual(["a, b, c +2 more", "none"]);
    const json = JSON.parse((await api.ctl(["token", "list", "--json", "--token", root])).stdout) as {
      name: string;
    }[];
    expect(json.find((t) => t.name === wide)).toMatchObject({
      models: ["a", "b", "c", "d", "e"],
      requestsPerMinute: null,
      concurrency: null,
    });
  });

  it("is refused without a token once tokens exist (exit 1, the server's message)", async () => {
    const run = await api.ctl(["token", "list"]);
    expect(run).toMatchObject({ code: 1, stdout: "" });
    expect(run.stderr).toContain("send a token");
  });
});

describe("llmgw ctl token revoke", () => {
  it("revokes: the token is refused from then on", async () => {
    const name = fresh("doomed");
    const secret = tokenOf(
      (await api.ctl(["token", "create", "--name", name, "--role", "viewer", "--token", root])).stdout,
    );
    expect((await api.ctl(["models", "--token", secret])).code).toBe(0);

    const run = await api.ctl(["token", "revoke", name, "--token", root]);

    expect(run).toEqual({ code: 0, stdout: `revoked ${name}\n`, stderr: "" });
    const after = await api.ctl(["models", "--token", secret]);
    expect(after.code).toBe(1);
    expect(after.stderr).toContain("the token is not valid");
  });

  it("says so for a name it does not know", async () => {
    const run = await api.ctl(["token", "revoke", fresh("nobody"), "--token", root]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/a token called nobody-\d+ was not found/);
  });
});
