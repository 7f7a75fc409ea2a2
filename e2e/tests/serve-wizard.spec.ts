import { answer } from "@llmgw/client";
import { expect } from "@playwright/test";
import { modelInput, ownerWithQuota, segment, test, uniqueName, watchRequests } from "./fixtures";

test("the serve wizard refuses what cannot run, checks fields before sending, puts the server's refusals on their fields, and lands on the new card", async ({
  page,
  api,
}) => {
  // A name already in the catalogue, for the server (not the browser) to refuse.
  const taken = await answer(api.models.$post({ json: modelInput() }));
  const name = uniqueName("llama-e2e");
  const posts = watchRequests(page, "POST", "/api/v1/models");

  await page.goto("/serve");
  const wizard = page.getByTestId("serve-wizard");
  await expect(wizard.getByTestId("serve-step-1")).toBeVisible();

  // Step 1: refused versions say why and cannot be picked.
  const fancynet = wizard.getByTestId("serve-version-fancynet-3b-Q8_0");
  await expect(fancynet.getByTestId("serve-refusal")).toHaveText(
    /^llama\.cpp on the nodes cannot run this: .*fancynet/,
  );
  await expect(fancynet.getByRole("radio")).toBeDisabled();
  const onnx = wizard.getByTestId("serve-version-whisper-large-onnx");
  await expect(onnx.getByTestId("serve-refusal")).toHaveText("nothing here reads .onnx files");
  await expect(onnx.getByRole("radio")).toBeDisabled();

  await wizard.getByTestId("serve-version-llama-3.1-8b-instruct-Q4_K_M").getByRole("radio").check();
  await wizard.getByTestId("serve-next").click();

  // Step 2: the plan, with the memory estimate's basis from the GGUF header.
  const plan = wizard.getByTestId("serve-plan");
  await expect(plan.getByTestId("plan-engine")).toHaveText("llamacpp");
  await expect(plan.getByTestId("plan-basis")).toContainText("KV cache");
  await expect(plan.getByTestId("plan-source")).toContainText(
    "/mirror/llama-3.1-8b-instruct/Q4_K_M/llama-3.1-8b-instruct-Q4_K_M.gguf",
  );
  await wizard.getByTestId("serve-next").click();

  // Step 3: invalid fields are flagged in the browser, and nothing is sent.
  const step3 = wizard.getByTestId("serve-step-3");
  const nameField = step3.getByTestId("field-name");
  const contextField = step3.getByTestId("field-contextLength");
  await step3.getByLabel("Name", { exact: true }).fill("not a name!");
  await step3.getByLabel("Context length", { exact: true }).fill("0");
  // Stopped: the new model takes no capacity from what other tests measure.
  await step3.getByLabel("Mode", { exact: true }).selectOption("stopped");
  await wizard.getByTestId("serve-next").click();
  await expect(nameField.getByTestId("field-error")).toBeVisible();
  await expect(step3.getByLabel("Name", { exact: true })).toHaveAttribute("aria-invalid", "true");
  await expect(contextField.getByTestId("field-error")).toBeVisible();
  await expect(wizard.getByTestId("serve-step-3")).toBeVisible();
  expect(posts).toHaveLength(0);

  // A name the browser accepts but the server has: its 409 lands on Name.
  await step3.getByLabel("Name", { exact: true }).fill(taken.name);
  await step3.getByLabel("Context length", { exact: true }).fill("8192");
  await expect(nameField.getByTestId("field-error")).toHaveCount(0);
  await expect(contextField.getByTestId("field-error")).toHaveCount(0);
  await wizard.getByTestId("serve-next").click();
  await expect(wizard.getByTestId("serve-step-4")).toBeVisible();
  expect(posts).toHaveLength(0);
  const nameRefusal = page.waitForResponse(
    (res) => res.request().method() === "POST" && new URL(res.url()).pathname === "/api/v1/models",
  );
  await wizard.getByTestId("serve-submit").click();
  const refused = await nameRefusal;
  expect(refused.status()).toBe(409);
  const nameBody = (await refused.json()) as { error: { code: string; message: string } };
  expect(nameBody.error.code).toBe("name_taken");
  await expect(nameField.getByTestId("field-error")).toHaveText(nameBody.error.message);
  await expect(nameField.getByTestId("field-error")).toContainText(taken.name);

  // An alias that is somebody else's name: its 409 lands on Aliases, naming the alias.
  const aliasField = step3.getByTestId("field-aliases");
  await step3.getByLabel("Name", { exact: true }).fill(name);
  await step3.getByLabel("Aliases", { exact: true }).fill(`${name}-chat, ${taken.name}`);
  await wizard.getByTestId("serve-next").click();
  const aliasRefusal = page.waitForResponse(
    (res) => res.request().method() === "POST" && new URL(res.url()).pathname === "/api/v1/models",
  );
  await wizard.getByTestId("serve-submit").click();
  const aliasRefused = await aliasRefusal;
  expect(aliasRefused.status()).toBe(409);
  const aliasBody = (await aliasRefused.json()) as { error: { fields: Record<string, string> } };
  expect(Object.keys(aliasBody.error.fields)).toEqual(["aliases.1"]);
  await expect(aliasField.getByTestId("field-error")).toContainText(`"${taken.name}"`);
  await expect(aliasField.getByTestId("field-error")).toContainText(
    aliasBody.error.fields["aliases.1"] ?? "",
  );
  await expect(nameField.getByTestId("field-error")).toHaveCount(0);

  // Fixed: the model is added and the page moves to its new card.
  await step3.getByLabel("Aliases", { exact: true }).fill(`${name}-chat`);
  await wizard.getByTestId("serve-next").click();
  await expect(wizard.getByTestId("serve-step-4")).toContainText(name);
  const created = page.waitForResponse(
    (res) => res.request().method() === "POST" && new URL(res.url()).pathname === "/api/v1/models",
  );
  await wizard.getByTestId("serve-submit").click();
  expect((await created).status()).toBe(201);
  expect(posts).toHaveLength(3);

  await expect(page).toHaveURL(`/models?model=${name}`);
  const card = page.getByTestId(`model-card-${name}`);
  await expect(card).toBeVisible();
  await expect(card).toBeFocused();
  await expect(card.getByTestId("field-mode").getByLabel("Mode", { exact: true })).toHaveValue("stopped");

  const stored = await answer(api.models[":name"].$get({ param: { name: segment(name) } }));
  expect(stored.origin).toBe("runtime");
  expect(stored.aliases).toEqual([`${name}-chat`]);
  expect(stored.contextLength).toBe(8192);
  expect(stored.profiles[0]?.engine).toBe("llamacpp");
  expect(stored.source).toMatch(
    /\/mirror\/llama-3\.1-8b-instruct\/Q4_K_M\/llama-3\.1-8b-instruct-Q4_K_M\.gguf$/,
  );
  await expect(card.getByLabel("Memory (GB)")).toHaveValue(String(stored.profiles[0]?.minMemoryGB));
});

test("the wizard sets class, owner and max replicas with the owner's quota in view, and the new card says live how its replica is placed", async ({
  page,
  api,
}) => {
  const owner = await ownerWithQuota(api, { memoryGB: 100, cpuCores: null, gpus: null, replicas: 5 });
  // The model runs only on this test's own node, so no other test's fleet counts.
  const pool = uniqueName("pool");
  const node = {
    name: uniqueName("e2e-node"),
    memoryGB: 64,
    cpuCount: 16,
    engines: ["llamacpp"],
    labels: { pool },
  };
  await answer(api.agents.heartbeat.$post({ json: { node, replicas: [] } }));
  const name = uniqueName("placed");

  await page.goto("/serve?model=llama-3.1-8b-instruct&version=Q4_K_M");
  const wizard = page.getByTestId("serve-wizard");
  await wizard.getByTestId("serve-next").click();
  const step3 = wizard.getByTestId("serve-step-3");
  await step3.getByLabel("Name", { exact: true }).fill(name);
  // Every new model used to start standard and unowned, outside every quota.
  const classSelect = step3.getByLabel("Class", { exact: true });
  await expect(classSelect).toHaveValue("standard");
  await expect(classSelect.locator("option")).toHaveText(["critical", "standard", "batch"]);
  await classSelect.selectOption("critical");
  const quota = step3.getByTestId("serve-owner-quota");
  await expect(quota).toHaveText("unowned: counts against no quota");
  await step3.getByLabel("Owner", { exact: true }).fill(owner);
  await expect(quota).toHaveText(
    `${owner} uses 0 of 100 GB, cores: no limit, GPUs: no limit, 0 of 5 replicas`,
  );
  await step3.getByLabel("Mode", { exact: true }).selectOption("always");
  await step3.getByLabel("Replicas", { exact: true }).fill("1");
  // Max beside replicas (SPEC §9.6): traffic may take it to 3.
  await step3.getByLabel("Max replicas", { exact: true }).fill("3");
  await step3.getByLabel("Node label", { exact: true }).fill("pool");
  await step3.getByLabel("Label value", { exact: true }).fill(pool);
  await wizard.getByTestId("serve-next").click();

  const summary = wizard.getByTestId("serve-summary");
  await expect(summary.getByTestId("summary-class")).toHaveText("critical");
  await expect(summary.getByTestId("summary-owner")).toHaveText(owner);
  const sent = page.waitForRequest(
    (req) => req.method() === "POST" && new URL(req.url()).pathname === "/api/v1/models",
  );
  await wizard.getByTestId("serve-submit").click();
  expect((await sent).postDataJSON()).toMatchObject({
    name,
    class: "critical",
    owner,
    scaling: { min: 1, max: 3 },
  });

  // The new card: with the e2e server's scheduler off, that only an agent will start it (never
  // "placing…" forever), then starting once an agent reports the replica, then nothing to say.
  await expect(page).toHaveURL(`/models?model=${name}`);
  const card = page.getByTestId(`model-card-${name}`);
  await expect(card.getByTestId("autoscale-range")).toHaveText("1–3");
  const placing = card.getByTestId("model-placing");
  await expect(placing).toHaveText("1 replica not running: the scheduler is off, only agents start replicas");
  const stored = await answer(api.models[":name"].$get({ param: { name: segment(name) } }));
  expect(stored).toMatchObject({ class: "critical", owner });
  const replica = { id: `${name}-1`, model: name };
  await answer(api.agents.heartbeat.$post({ json: { node, replicas: [{ ...replica, state: "starting" }] } }));
  await expect(placing).toHaveText("starting 1 replica…");
  await answer(api.agents.heartbeat.$post({ json: { node, replicas: [{ ...replica, state: "ready" }] } }));
  await expect(placing).toHaveCount(0);
  const quotas = await answer(api.quotas.$get());
  expect(quotas.find((q) => q.owner === owner)?.used.replicas).toBe(1);
});
