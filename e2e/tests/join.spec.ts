import { AGENT_VERSION } from "@llmgw/agent";
import { answer, connect } from "@llmgw/client";
import { expect, test } from "@playwright/test";
import { blockingViolations } from "./axe";
import { newSecret, signIn, startTokenServer, type TokenServer } from "./tokenServer";

// Issue 32: the Fleet page's "Add a node" shows the one line that joins a machine to this server,
// with the token step (tokens are on): the ctl line that makes the node's agent token, or, for an
// admin, a button that makes it and puts it in the line, shown once. The token made works for that
// node's heartbeats. A node whose agent is not the server's version is marked, with its upgrade line.

const TOKENS = { admin: newSecret(), viewer: newSecret(), oldAgent: newSecret() };
const OLD = "e2e-old-agent";
let server: TokenServer | null = null;

test.beforeAll(async () => {
  test.setTimeout(120_000);
  server = await startTokenServer(
    [
      { name: "e2e-admin", role: "admin", secret: TOKENS.admin },
      { name: "e2e-viewer", role: "viewer", secret: TOKENS.viewer },
      { name: OLD, role: "agent", node: OLD, secret: TOKENS.oldAgent },
    ],
    {},
    "join-server.ts",
  );
});

test.afterAll(async () => {
  await server?.stop();
});

test("Add a node shows the one line, makes the node's agent token for an admin, and marks an old agent", async ({
  page,
}, testInfo) => {
  test.setTimeout(90_000);
  const url = server?.url ?? "";
  await page.goto(`${url}/fleet`);
  await signIn(page, TOKENS.admin);

  // The first-run guide's agent step is the same line, the token a placeholder.
  await expect(page.getByTestId("first-run-agent").getByTestId("join-line")).toHaveText(
    `curl -fsSL ${url}/install.sh | sh -s -- --token '<agent token>'`,
  );

  await page.getByTestId("add-node").click();
  const panel = page.getByTestId("add-node-panel");
  await expect(panel.getByTestId("join-line")).toHaveText(
    `curl -fsSL ${url}/install.sh | sh -s -- --token '<agent token>'`,
  );
  await panel.getByLabel("Node name").fill("rack 9");
  await expect(panel.getByText("1 to 64 letters, digits and . _ : -")).toBeVisible();
  await panel.getByLabel("Node name").fill("rack-9");
  await expect(panel.getByTestId("join-line")).toHaveText(
    `curl -fsSL ${url}/install.sh | sh -s -- --token '<agent token>' --name rack-9`,
  );
  expect(await blockingViolations(page)).toEqual([]);

  // An admin makes the node's token here: the line then holds it, this once.
  await panel.getByTestId("join-make-token").click();
  await expect(panel.getByTestId("join-token-made")).toBeVisible();
  await page.screenshot({ path: testInfo.outputPath("add-node.png"), fullPage: true });
  const line = (await panel.getByTestId("join-line").textContent()) ?? "";
  const token = / --token (llmgw_[A-Za-z0-9_-]{43}) --name rack-9$/.exec(line)?.[1];
  expect(line.startsWith(`curl -fsSL ${url}/install.sh | sh -s -- --token llmgw_`), line).toBe(true);
  expect(token).toBeDefined();
  // The script the line fetches is there, and names this server.
  const script = await (await fetch(`${url}/install.sh`)).text();
  expect(script).toContain(`SERVER='${url}'\n`);

  // The token speaks for rack-9: its heartbeat is taken, and the node shows, of the server's version.
  const rack9 = connect({ server: url, token: token ?? "" }).api;
  await answer(
    rack9.agents.heartbeat.$post({
      json: {
        node: { name: "rack-9", memoryGB: 16, cpuCount: 4, agentVersion: AGENT_VERSION },
        replicas: [],
      },
    }),
  );
  await expect(page.getByTestId("node-card-rack-9")).toBeVisible();
  await expect(page.getByTestId("node-card-rack-9").getByTestId("node-outdated")).toHaveCount(0);
  // Closing the panel forgets the secret: opened again, the line has the placeholder.
  await page.getByTestId("add-node").click();
  await page.getByTestId("add-node").click();
  await expect(page.getByTestId("add-node-panel").getByTestId("join-line")).not.toContainText("llmgw_");

  // An agent of another version: marked, with the line that upgrades it.
  const old = connect({ server: url, token: TOKENS.oldAgent }).api;
  await answer(
    old.agents.heartbeat.$post({
      json: { node: { name: OLD, memoryGB: 8, cpuCount: 2, agentVersion: "0.0.1" }, replicas: [] },
    }),
  );
  const card = page.getByTestId(`node-card-${OLD}`);
  await expect(card.getByTestId("node-outdated")).toHaveText(`agent 0.0.1 ≠ ${AGENT_VERSION}`);
  await card.getByText(`Upgrade its agent to ${AGENT_VERSION}`).click();
  await expect(card.getByTestId("node-upgrade-line")).toHaveText(
    `curl -fsSL ${url}/install.sh | sh -s -- --name ${OLD}`,
  );
  expect(await blockingViolations(page)).toEqual([]);
  await card.screenshot({ path: testInfo.outputPath("node-outdated.png") });
});

test("a viewer sees the ctl line that makes the token, and no button", async ({ page }) => {
  const url = server?.url ?? "";
  await page.goto(`${url}/fleet`);
  await signIn(page, TOKENS.viewer);
  await page.getByTestId("add-node").click();
  const panel = page.getByTestId("add-node-panel");
  await panel.getByLabel("Node name").fill("rack-10");
  await expect(panel.getByTestId("join-token-command")).toHaveText(
    `llmgw ctl token create --name rack-10 --role agent --node rack-10 --server ${url}`,
  );
  await expect(panel.getByTestId("join-make-token")).toHaveCount(0);
});
