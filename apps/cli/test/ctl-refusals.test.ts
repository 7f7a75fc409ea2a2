import { createServer } from "node:net";
import type { ModelView } from "@llmgw/domain";
import { describe, expect, it } from "vitest";
import { fresh, useCtl } from "./ctl-harness";

// What `llmgw ctl` does when the answer is no: the server's message (and its field errors) on
// stderr, nothing on stdout, and an exit code a script can branch on.

const DECLARED = "declared-chat";
const api = useCtl({ declared: [DECLARED] });

describe("refusals from the server: exit 1, its message on stderr", () => {
  it("a class that does not exist is the server's 400, with its field error", async () => {
    const name = fresh("model");
    await api.addModel({ name });

    const run = await api.ctl(["model", "set", name, "--class", "gold"]);

    expect(run).toEqual({
      code: 1,
      stdout: "",
      stderr:
        'llmgw ctl: no class called "gold"\n' +
        '  class: no class called "gold"; the classes are critical, standard, batch\n',
    });
    const model = await api.client().models[":name"].$get({ param: { name } });
    expect(((await model.json()) as ModelView).class).toBe("standard");
  });

  it("a model declared in the configuration is read-only (409 declared_in_config)", async () => {
    const set = await api.ctl(["model", "set", DECLARED, "--owner", "someone"]);
    expect(set.code).toBe(1);
    expect(set.stdout).toBe("");
    expect(set.stderr).toContain(`${DECLARED} is declared in the configuration file; edit it there`);

    const target = await api.ctl(["model", "target", DECLARED, "2"]);
    expect(target.code).toBe(1);
    expect(target.stderr).toContain("declared in the configuration file");
  });

  it("an unknown model is a 404 for every command that names one", async () => {
    const name = fresh("missing");
    for (const args of [
      ["model", "show", name],
      ["model", "set", name, "--owner", "x"],
      ["model", "target", name, "1", "--dry-run"],
      ["headroom", name, "--json"],
    ]) {
      expect(await api.ctl(args), args.join(" ")).toEqual({
        code: 1,
        stdout: "",
        stderr: `llmgw ctl: a model called ${name} was not found\n`,
      });
    }
  });

  it("a quota owner the API refuses names the field", async () => {
    const run = await api.ctl(["quota", "set", "o".repeat(65), "--replicas", "1"]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^llmgw ctl: the owner is not valid: .*\n {2}owner: .+\n$/);
  });
});

describe("usage errors: exit 2, before anything is sent", () => {
  it.each([
    [["model", "set", "m"], "model set: nothing to set"],
    [["model", "set", "m", "--memory", "1.5"], '--memory: expected a whole number, got "1.5"'],
    [["model", "set", "m", "--mode", "sometimes"], "--mode: expected one of always, ondemand, stopped"],
    [["model", "target", "m", "many"], 'N: expected a whole number, got "many"'],
    [["model", "target", "m"], "usage: llmgw ctl model target NAME N [--dry-run]"],
    [["models", "extra"], "usage: llmgw ctl models"],
    [["models", "--class", "batch"], "models does not take --class"],
    [["quota", "set", "team"], "quota set: nothing to set"],
    [["quota", "set", "team", "--gpus", "some"], '--gpus: expected a whole number, got "some"'],
    [["model"], "model: expected one of show, target, set"],
    [["nodes"], 'no command "nodes"'],
    [["models", "--frobnicate"], "Unknown option '--frobnicate'"],
    [["models", "--server", "localhost:8080"], '--server: "localhost:8080" is not an http(s) URL'],
  ])("%j", async (args, message) => {
    let requests = 0;
    const count = async () => {
      requests += 1;
      return new Response("{}");
    };
    const run = await api.ctl(args, { fetch: count });
    expect(run.code).toBe(2);
    expect(run.stdout).toBe("");
    expect(run.stderr).toContain(message);
    expect(requests).toBe(0);
  });

  it("--help prints usage on stdout and exits 0; no command at all is a usage error", async () => {
    const all = await api.ctl(["--help"]);
    expect(all.code).toBe(0);
    for (const line of ["llmgw ctl models", "llmgw ctl model set NAME [--class C]", "llmgw ctl audit"]) {
      expect(all.stdout).toContain(line);
    }
    const one = await api.ctl(["quota", "set", "--help"]);
    expect(one).toMatchObject({ code: 0, stderr: "" });
    expect(one.stdout).toMatch(/^llmgw ctl quota set OWNER \[--memory GB\|none\]/);
    const none = await api.ctl([]);
    expect(none).toMatchObject({ code: 2, stdout: "" });
    expect(none.stderr).toContain("llmgw ctl models");
  });
});

/** A loopback port nothing listens on: one the OS just gave out and took back. */
async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const address = probe.address();
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  if (address === null || typeof address === "string") throw new Error("no TCP port");
  return address.port;
}

describe("connection", () => {
  it("a server that does not answer is exit 3, naming the URL", async () => {
    const server = `http://127.0.0.1:${await closedPort()}`;
    const byFlag = await api.ctl(["models", "--server", server], { fetch: undefined });
    expect(byFlag.code).toBe(3);
    expect(byFlag.stdout).toBe("");
    expect(byFlag.stderr).toContain(`cannot reach the llmgw server at ${server} (ECONNREFUSED)`);

    const byEnv = await api.ctl(["fleet"], { fetch: undefined, env: { LLMGW_SERVER: `${server}/` } });
    expect(byEnv.code).toBe(3);
    expect(byEnv.stderr).toContain(`at ${server} (`);
  });

  it("sends the token as a bearer token, from --token or LLMGW_TOKEN", async () => {
    const seen: (string | null)[] = [];
    const watch = async (input: RequestInfo | URL, init?: RequestInit) => {
      seen.push(new Headers(init?.headers).get("authorization"));
      return api.app.request(input, init);
    };
    await api.ctl(["quotas", "--token", "s3cret"], { fetch: watch });
    await api.ctl(["quotas"], { fetch: watch, env: { LLMGW_TOKEN: "from-env" } });
    await api.ctl(["quotas"], { fetch: watch });
    expect(seen).toEqual(["Bearer s3cret", "Bearer from-env", null]);
  });
});
