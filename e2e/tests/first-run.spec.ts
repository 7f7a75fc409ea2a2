import { join } from "node:path";
import { answer, connect } from "@llmgw/client";
import { llama31_8b, writeGgufFile } from "@llmgw/simulation";
import { expect, test } from "@playwright/test";
import { blockingViolations } from "./axe";
import { modelInput } from "./fixtures";
import { newSecret, signIn, startTokenServer, type TokenServer } from "./tokenServer";

// Issue 18: a new user is told what to do. On a server with an empty mirror, no nodes and tokens
// on, Capacity, Mirror and Fleet show the first-run guide with this server's own address, the
// token step and the mirror's directory; a .gguf at the mirror's root is listed as misplaced with
// its fix; each step ticks off live as weights land, an agent reports and a model is served.
// Its own server (first-run-server.ts), since the one the other specs share is seeded.

const TOKENS = { admin: newSecret(), agent: newSecret() };
const NODE = "e2e-first-run-node";
let server: TokenServer | null = null;

test.beforeAll(async () => {
  test.setTimeout(120_000);
  server = await startTokenServer(
    [
      { name: "e2e-admin", role: "admin", secret: TOKENS.admin },
      { name: "e2e-agent", role: "agent", node: NODE, secret: TOKENS.agent },
    ],
    {},
    "first-run-server.ts",
  );
});

test.afterAll(async () => {
  await server?.stop();
});

test("the empty screens guide a new user, with this server's address, and tick off each step live", async ({
  page,
}, testInfo) => {
  test.setTimeout(90_000);
  const url = server?.url ?? "";
  const admin = connect({ server: url, token: TOKENS.admin }).api;
  const agent = connect({ server: url, token: TOKENS.agent }).api;
  const info = await answer(admin.mirror.info.$get());
  expect(info.misplaced).toEqual([]);

  await page.goto(url);
  await signIn(page, TOKENS.admin);
  const guide = page.getByTestId("first-run");
  await expect(guide).toBeVisible();
  // The one line that joins a machine to this server (issue 32), and the token step since tokens are on.
  await expect(guide.getByTestId("join-line")).toHaveText(
    `curl -fsSL ${url}/install.sh | sh -s -- --token '<agent token>'`,
  );
  await expect(guide.getByTestId("join-token-step")).toBeVisible();
  await expect(guide.getByTestId("first-run-mirror")).toContainText(`${info.dir}/<model>/<version>/<file>`);
  // No wall of zeros: no totals while no node is there.
  await expect(page.getByTestId("fleet-totals")).toHaveCount(0);
  for (const step of ["mirror", "agent", "serve"])
    await expect(guide.getByTestId(`first-run-${step}`)).toHaveAttribute("data-done", "false");

  // Screenshots of the empty screens, at a laptop's and a phone's size.
  for (const [width, height] of [
    [1280, 800],
    [390, 844],
  ] as const) {
    await page.setViewportSize({ width, height });
    for (const [name, path] of [
      ["capacity", "/"],
      ["mirror", "/mirror"],
      ["fleet", "/fleet"],
    ] as const) {
      await page.goto(`${url}${path}`);
      await expect(page.getByTestId("first-run")).toBeVisible();
      expect(await blockingViolations(page)).toEqual([]);
      await page.screenshot({
        path: testInfo.outputPath(`first-run-${name}-${width}x${height}.png`),
        fullPage: true,
      });
    }
  }
  await page.setViewportSize({ width: 1280, height: 800 });

  // A .gguf at the mirror's root: listed on the Mirror page as misplaced, with where to move it.
  await page.goto(`${url}/mirror`);
  await expect(page.getByTestId("mirror-empty")).toContainText(`${info.dir}/<model>/<version>/<file>`);
  await writeGgufFile(join(info.dir, "stray.gguf"), llama31_8b());
  await expect(page.getByTestId("misplaced-stray.gguf")).toHaveText(
    `move stray.gguf to ${info.dir}/<model>/<version>/stray.gguf`,
    { timeout: 15_000 },
  );
  await expect(page.getByTestId("first-run-mirror")).toHaveAttribute("data-done", "false");

  // Weights in place: the first step ticks off, without a reload.
  await writeGgufFile(join(info.dir, "tiny", "v1", "tiny.gguf"), llama31_8b());
  await expect(page.getByTestId("first-run-mirror")).toHaveAttribute("data-done", "true", {
    timeout: 15_000,
  });

  // With no node, the wizard proposes no cores and says why rather than offering 0.
  await page.goto(`${url}/serve`);
  const wizard = page.getByTestId("serve-wizard");
  await wizard.getByTestId("serve-version-tiny-v1").getByRole("radio").check();
  await wizard.getByTestId("serve-next").click();
  await expect(wizard.getByTestId("plan-cores")).toHaveText("no node reports its cores");
  await wizard.getByTestId("serve-next").click();
  await expect(wizard.getByTestId("serve-no-cores")).toBeVisible();

  // An agent reports: the second.
  await page.goto(`${url}/fleet`);
  await expect(page.getByTestId("first-run-agent")).toHaveAttribute("data-done", "false");
  await answer(
    agent.agents.heartbeat.$post({ json: { node: { name: NODE, memoryGB: 16, cpuCount: 4 }, replicas: [] } }),
  );
  await expect(page.getByTestId("first-run-agent")).toHaveAttribute("data-done", "true");
  await expect(page.getByTestId(`node-card-${NODE}`)).toBeVisible();

  // A version served: every step done, the guide steps aside.
  await answer(admin.models.$post({ json: modelInput({ source: `${url}/mirror/tiny/v1/tiny.gguf` }) }));
  await expect(page.getByTestId("first-run")).toHaveCount(0);
  // A misplaced file is still said on the Mirror page once the guide has gone.
  await page.goto(`${url}/mirror`);
  await expect(page.getByTestId("misplaced-stray.gguf")).toBeVisible();
});
