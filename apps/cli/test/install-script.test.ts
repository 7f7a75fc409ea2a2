import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig, type RunningServer, silentLogger, startServer } from "@llmgw/api";
import { newToken, sha256Hex, tokensYaml } from "@llmgw/api/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { agentSource } from "../src/serve";
import { piped, type Ran, SCRIPT_TOOLS, toolsIn } from "./join-kit";

// install.sh (SPEC §5) case by case, piped to sh (dash on Debian) as `curl … | sh -s --` does: the
// service's files under a fake root, and every way it must stop with a clear message and leave no
// half-written agent.mjs behind. The whole join, with the agent running, is join.test.ts.

const SECRET = { admin: newToken(), agent: newToken() };
let root = "";
let server: RunningServer;
let script = "";
let count = 0;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "llmgw-install-"));
  const file = join(root, "llmgw.yaml");
  await writeFile(file, tokensYaml([{ name: "ops", role: "admin", sha256: sha256Hex(SECRET.admin) }]));
  server = await startServer(
    loadConfig({ config: file, dataDir: join(root, "server"), listen: "127.0.0.1:0" }, {}),
    { log: silentLogger(), agent: agentSource(silentLogger()) },
  );
  script = await (await fetch(`${server.url}/install.sh`)).text();
}, 120_000);

afterAll(async () => {
  await server?.close();
  if (root) await rm(root, { recursive: true, force: true });
});

/** A folder of its own for one case. */
async function folder(): Promise<string> {
  count += 1;
  const dir = join(root, `case-${count}`);
  await mkdir(dir, { recursive: true });
  return dir;
}

const systemPath = `${process.execPath.slice(0, process.execPath.lastIndexOf("/"))}:/usr/bin:/bin`;

/** The script as the server at `url` would write it (the same script, another address in it). */
const scriptFor = (url: string) => script.replace(/^SERVER='[^']*'$/m, `SERVER='${url}'`);

/** A stand-in server answering every request with `status` and `body`. */
async function standIn(status: number, body: string): Promise<{ url: string; close: () => Promise<void> }> {
  const http: Server = createServer((_req, res) => {
    res.writeHead(status, { "content-type": "application/json" }).end(body);
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise((resolve) => http.close(() => resolve())),
  };
}

function expectStopped(ran: Ran, message: string | RegExp) {
  expect(ran.code, ran.stdout + ran.stderr).toBe(1);
  if (typeof message === "string") expect(ran.stderr).toContain(message);
  else expect(ran.stderr).toMatch(message);
}

/** The prefix holds no agent.mjs, whole or partial. */
async function expectNothingIn(prefix: string) {
  const left = existsSync(prefix) ? await readdir(prefix) : [];
  expect(left).toEqual([]);
}

describe("install.sh", () => {
  it("is POSIX sh: sh -n and dash -n read it", () => {
    for (const sh of ["sh", ...(existsSync("/usr/bin/dash") ? ["dash"] : [])]) {
      const checked = spawnSync(sh, ["-n"], { input: script, encoding: "utf8" });
      expect(checked.stderr, sh).toBe("");
      expect(checked.status, sh).toBe(0);
    }
    expect(script).toContain(`SERVER='${server.url}'\n`);
    expect(script).toContain("TOKENS_REQUIRED='yes'\n");
  });

  it("writes the systemd unit and a root-only environment file under --root, and keeps them on a re-run", async () => {
    const fake = await folder();
    await mkdir(join(fake, "run", "systemd", "system"), { recursive: true });
    // systemctl as a recorder: what the script asks of it, and nothing done to this machine.
    const bin = join(fake, "bin");
    await mkdir(bin);
    await writeFile(join(bin, "systemctl"), `#!/bin/sh\necho "$*" >> ${join(fake, "systemctl.log")}\n`);
    await chmod(join(bin, "systemctl"), 0o755);
    const env = { PATH: `${bin}:${systemPath}`, HOME: fake };
    const ran = await piped(script, ["--root", fake, "--token", SECRET.agent, "--name", "rack-7"], env);
    expect(ran.stderr).toBe("");
    expect(ran.code).toBe(0);
    expect(ran.stdout).toContain(`llmgw: agent.mjs 0.1.0 is in ${fake}/opt/llmgw\n`);
    // Enabled offline in that root, never started: --root is another system's files.
    expect(await readFile(join(fake, "systemctl.log"), "utf8")).toBe(
      `--root=${fake} enable --quiet llmgw-agent.service\n`,
    );
    expect(ran.stdout).toContain(`llmgw: wrote and enabled ${fake}/etc/systemd/system/llmgw-agent.service`);
    expect(ran.stdout).not.toContain(SECRET.agent);

    const envFile = join(fake, "etc", "llmgw", "agent.env");
    const unitFile = join(fake, "etc", "systemd", "system", "llmgw-agent.service");
    expect((await stat(envFile)).mode & 0o777).toBe(0o600);
    expect((await stat(join(fake, "etc", "llmgw"))).mode & 0o777).toBe(0o700);
    expect((await stat(unitFile)).mode & 0o777).toBe(0o644);
    expect((await stat(join(fake, "opt", "llmgw", "agent.mjs"))).mode & 0o777).toBe(0o644);
    expect(await readFile(envFile, "utf8")).toBe(
      [
        "# llmgw-agent.service reads this; root only: it holds the node's agent token.",
        `LLMGW_SERVER=${server.url}`,
        "LLMGW_NAME=rack-7",
        `LLMGW_TOKEN=${SECRET.agent}`,
        "",
      ].join("\n"),
    );
    const unit = await readFile(unitFile, "utf8");
    expect(unit).toContain("\nEnvironmentFile=/etc/llmgw/agent.env\n");
    expect(unit).toContain(
      `\nExecStart=${process.execPath} /opt/llmgw/agent.mjs --cache-dir /var/cache/llmgw/weights\n`,
    );
    expect(unit).toContain("\nRestart=always\n");
    expect(unit).toContain("\nWantedBy=multi-user.target\n");
    expect(unit).not.toContain(SECRET.agent);

    // The line run again, as an upgrade, without the token at hand: the node keeps its own.
    const again = await piped(script, ["--root", fake], env);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain("nothing to download");
    expect(await readFile(envFile, "utf8")).toContain(`LLMGW_NAME=rack-7\nLLMGW_TOKEN=${SECRET.agent}\n`);
  }, 60_000);

  it("asks for --token before installing a service for a server with tokens", async () => {
    const fake = await folder();
    await mkdir(join(fake, "run", "systemd", "system"), { recursive: true });
    const ran = await piped(script, ["--root", fake], { PATH: systemPath, HOME: fake });
    expectStopped(ran, "this server asks for tokens: give the node's agent token with --token T");
    expect(existsSync(join(fake, "etc", "llmgw", "agent.env"))).toBe(false);
  }, 60_000);

  it("prints the command where there is no systemd", async () => {
    const fake = await folder();
    const ran = await piped(script, ["--root", fake, "--name", "rack-8"], { PATH: systemPath, HOME: fake });
    expect(ran.code).toBe(0);
    expect(ran.stdout).toContain("no systemd here, so no service is installed");
    expect(ran.stdout).toContain(
      `  LLMGW_TOKEN='<agent token>' ${process.execPath} /opt/llmgw/agent.mjs --server ${server.url} --name rack-8\n`,
    );
  }, 60_000);

  it("downloads with wget when there is no curl", async () => {
    const dir = await folder();
    const tools = await toolsIn(join(dir, "bin"), [...SCRIPT_TOOLS, "node", "wget"]);
    const ran = await piped(script, ["--prefix", join(dir, "llmgw"), "--no-service"], {
      PATH: tools,
      HOME: dir,
    });
    expect(ran.stderr).toBe("");
    expect(ran.code).toBe(0);
    expect(existsSync(join(dir, "llmgw", "agent.mjs"))).toBe(true);
  }, 60_000);
});

describe("install.sh stops with a clear message, and no agent.mjs", () => {
  it("without node on PATH, saying what to install", async () => {
    const dir = await folder();
    const tools = await toolsIn(join(dir, "bin"), [...SCRIPT_TOOLS, "curl"]);
    const ran = await piped(script, ["--prefix", join(dir, "llmgw")], { PATH: tools, HOME: dir });
    expectStopped(
      ran,
      "llmgw: Node.js is not installed (no node on PATH), and the agent needs Node.js 20 or newer. Install it (https://nodejs.org/en/download",
    );
    await expectNothingIn(join(dir, "llmgw"));
  });

  it("with a Node older than 20", async () => {
    const dir = await folder();
    const tools = await toolsIn(join(dir, "bin"), [...SCRIPT_TOOLS, "curl"]);
    await writeFile(join(tools, "node"), "#!/bin/sh\necho v18.19.1\n");
    await chmod(join(tools, "node"), 0o755);
    const ran = await piped(script, ["--prefix", join(dir, "llmgw")], { PATH: tools, HOME: dir });
    expectStopped(
      ran,
      `llmgw: Node.js v18.19.1 (${tools}/node) is too old: the agent needs Node.js 20 or newer.`,
    );
    await expectNothingIn(join(dir, "llmgw"));
  });

  it("without curl or wget", async () => {
    const dir = await folder();
    const tools = await toolsIn(join(dir, "bin"), [...SCRIPT_TOOLS, "node"]);
    const ran = await piped(script, ["--prefix", join(dir, "llmgw")], { PATH: tools, HOME: dir });
    expectStopped(ran, "llmgw: neither curl nor wget is installed");
    await expectNothingIn(join(dir, "llmgw"));
  });

  it("when the server cannot be reached, by curl or by wget", async () => {
    const gone = await standIn(200, "");
    await gone.close();
    for (const fetcher of ["curl", "wget"]) {
      const dir = await folder();
      const tools = await toolsIn(join(dir, "bin"), [...SCRIPT_TOOLS, "node", fetcher]);
      const ran = await piped(scriptFor(gone.url), ["--prefix", join(dir, "llmgw"), "--no-service"], {
        PATH: tools,
        HOME: dir,
      });
      expectStopped(ran, `llmgw: cannot reach the llmgw server at ${gone.url} (${fetcher}: `);
      expect(ran.stderr, fetcher).toMatch(
        fetcher === "curl" ? /\(curl: \(7\) [^)]*\): is it/ : /\(wget: network failure\): is it/,
      );
      expect(ran.stderr, fetcher).toContain("is it running, and can this machine reach it?");
      await expectNothingIn(join(dir, "llmgw"));
    }
  }, 60_000);

  it("on an HTTP error, with the server's status and message", async () => {
    const failing = await standIn(
      503,
      JSON.stringify({ error: { code: "internal", message: "no bundle today" } }),
    );
    try {
      const dir = await folder();
      const ran = await piped(scriptFor(failing.url), ["--prefix", join(dir, "llmgw"), "--no-service"], {
        PATH: systemPath,
        HOME: dir,
      });
      expectStopped(
        ran,
        `llmgw: the llmgw server answered HTTP 503 for ${failing.url}/install/agent.mjs: no bundle today`,
      );
      await expectNothingIn(join(dir, "llmgw"));
    } finally {
      await failing.close();
    }
  }, 60_000);

  it("when the file downloaded is not the agent the script names", async () => {
    const other = await standIn(200, "console.log('not the agent');\n");
    try {
      const dir = await folder();
      const ran = await piped(scriptFor(other.url), ["--prefix", join(dir, "llmgw"), "--no-service"], {
        PATH: systemPath,
        HOME: dir,
      });
      expectStopped(ran, "llmgw: the agent.mjs downloaded is not the one this script names");
      await expectNothingIn(join(dir, "llmgw"));
    } finally {
      await other.close();
    }
  }, 60_000);

  it("when the prefix cannot be made", async () => {
    const dir = await folder();
    await writeFile(join(dir, "a-file"), "");
    const prefix = join(dir, "a-file", "llmgw");
    const ran = await piped(script, ["--prefix", prefix, "--no-service"], { PATH: systemPath, HOME: dir });
    expectStopped(
      ran,
      new RegExp(`^llmgw: cannot create ${prefix} \\(.+\\): choose another place with --prefix DIR\\n$`),
    );
  });

  it("on a token or a name that is not one, and never says the token", async () => {
    const dir = await folder();
    const env = { PATH: systemPath, HOME: dir };
    const secretish = "llmgw_secret$(reboot)";
    const badToken = await piped(script, ["--token", secretish, "--prefix", join(dir, "p")], env);
    expectStopped(badToken, "llmgw: --token: that is not an llmgw token");
    const badName = await piped(script, ["--name", "rack 7", "--prefix", join(dir, "p")], env);
    expectStopped(
      badName,
      "llmgw: --name: a node's name is 1 to 64 letters, digits and . _ : - ('rack 7' is not)",
    );
    const typo = await piped(script, [`--tokn=${SECRET.agent}`], env);
    expectStopped(typo, "llmgw: unknown option --tokn\n");
    const stray = await piped(script, [SECRET.agent], env);
    expectStopped(stray, "unexpected argument (not shown: it may be a secret)");
    for (const ran of [badToken, badName, typo, stray]) {
      expect(ran.stdout + ran.stderr).not.toContain(SECRET.agent);
      expect(ran.stdout + ran.stderr).not.toContain(secretish);
    }
    await expectNothingIn(join(dir, "p"));
  });
});
