import { answer } from "@llmgw/client";
import type { ModelView } from "@llmgw/domain";
import { expect } from "@playwright/test";
import {
  isPatchOf,
  modelInput,
  openModelCard,
  ownerWithQuota,
  segment,
  test,
  watchRequests,
} from "./fixtures";

test("an inline edit of class and memory sends those two fields alone, with If-Match, and the capacity card shows the new headroom", async ({
  page,
  api,
}) => {
  const model = await answer(
    api.models.$post({ json: modelInput({ profile: { minMemoryGB: 8, cpuCores: 2 } }) }),
  );
  const before = await answer(api.models[":name"].headroom.$get({ param: { name: segment(model.name) } }));
  const card = await openModelCard(page, model.name);

  await card.getByLabel("Class", { exact: true }).selectOption("critical");
  await card.getByLabel("Memory (GB)", { exact: true }).fill("24");
  const sent = page.waitForRequest(isPatchOf(model.name));
  const answered = page.waitForResponse((res) => isPatchOf(model.name)(res.request()));
  await card.getByTestId("model-save").click();

  const patch = await sent;
  expect(patch.postDataJSON()).toEqual({ class: "critical", memoryGB: 24 });
  expect(await patch.headerValue("if-match")).toBe(`"${model.version}"`);
  const response = await answered;
  expect(response.status()).toBe(200);
  const updated = (await response.json()) as ModelView;
  expect(updated.version).toBe(model.version + 1);
  await expect(card.getByTestId("model-saved")).toHaveText("Saved");
  await expect(card.getByTestId("model-version")).toHaveText(`v${updated.version}`);

  const after = await answer(api.models[":name"].headroom.$get({ param: { name: segment(model.name) } }));
  expect(after.need.memoryGB).toBe(24);
  // Three times the memory per replica: fewer fit on free capacity than before.
  expect(after.free).not.toBe(before.free);

  // The capacity page, reached without a reload, shows what the API now says.
  await page.getByTestId("nav-capacity").click();
  const capacity = page.getByTestId(`capacity-card-${model.name}`);
  await expect(capacity.getByTestId("model-class")).toHaveText("critical");
  await expect(capacity).toContainText("each replica needs 24 GB");
  await expect(capacity.getByTestId("headroom-free")).toHaveText(`+${after.free} now`);
  await expect(capacity.getByTestId("headroom-preempt")).toContainText(`+${after.byPreemption}`);
  await expect(capacity.getByTestId("headroom-total")).toContainText(`+${after.total}`);
});

test("an inline edit done with the keyboard alone: Tab to the fields, type, Enter to save", async ({
  page,
  api,
}) => {
  const model = await answer(
    api.models.$post({ json: modelInput({ class: "batch", profile: { minMemoryGB: 4, cpuCores: 1 } }) }),
  );
  const card = await openModelCard(page, model.name);
  // The page focuses the card it was opened on; from there on, only keys.
  await expect(card).toBeFocused();

  const classSelect = card.getByLabel("Class", { exact: true });
  const memory = card.getByLabel("Memory (GB)", { exact: true });
  const cores = card.getByLabel("Cores", { exact: true });
  for (let i = 0; i < 10 && !(await classSelect.evaluate((el) => el === document.activeElement)); i++)
    await page.keyboard.press("Tab");
  await expect(classSelect).toBeFocused();
  // Type-ahead on a closed select picks the option, as a keyboard user would.
  await page.keyboard.type("s");
  await expect(classSelect).toHaveValue("standard");

  await page.keyboard.press("Tab"); // Owner
  await page.keyboard.press("Tab"); // Memory (GB)
  await expect(memory).toBeFocused();
  await page.keyboard.press("ControlOrMeta+a");
  await page.keyboard.type("6");
  await page.keyboard.press("Tab");
  await expect(cores).toBeFocused();
  await page.keyboard.press("ControlOrMeta+a");
  await page.keyboard.type("3");

  const sent = page.waitForRequest(isPatchOf(model.name));
  await page.keyboard.press("Enter");
  expect((await sent).postDataJSON()).toEqual({ class: "standard", memoryGB: 6, cpuCores: 3 });
  await expect(card.getByTestId("model-saved")).toHaveText("Saved");

  const stored = await answer(api.models[":name"].$get({ param: { name: segment(model.name) } }));
  expect(stored.class).toBe("standard");
  expect(stored.profiles[0]).toMatchObject({ minMemoryGB: 6, cpuCores: 3 });
  expect(stored.owner).toBe(model.owner);
});

test("an edit the server refuses is rolled back, with the server's message on the card", async ({
  page,
  api,
}) => {
  const owner = await ownerWithQuota(api, { memoryGB: null, cpuCores: null, gpus: null, replicas: 1 });
  const model = await answer(api.models.$post({ json: modelInput({ owner }) }));
  const card = await openModelCard(page, model.name);

  await card.getByLabel("Mode", { exact: true }).selectOption("always");
  await card.getByLabel("Replicas", { exact: true }).fill("3");
  const answered = page.waitForResponse((res) => isPatchOf(model.name)(res.request()));
  await card.getByTestId("model-save").click();
  const refused = await answered;
  expect(refused.status()).toBe(409);
  const body = (await refused.json()) as { error: { code: string; message: string } };
  expect(body.error.code).toBe("quota_exceeded");
  await expect(card.getByTestId("model-error")).toHaveText(body.error.message);
  await expect(card.getByTestId("model-error")).toContainText(owner);

  // The model is as it was, on the server and in the page; the operator's typing is kept to amend.
  expect((await answer(api.models[":name"].$get({ param: { name: segment(model.name) } }))).version).toBe(
    model.version,
  );
  await expect(card.getByTestId("model-version")).toHaveText(`v${model.version}`);
  await expect(card.getByLabel("Replicas", { exact: true })).toHaveValue("3");
  await expect(card.getByTestId("model-save")).toBeEnabled();
  await page.getByTestId("nav-capacity").click();
  await expect(page.getByTestId(`capacity-card-${model.name}`).getByTestId("model-mode")).toHaveText(
    "stopped",
  );
});

test("an inline value the API would refuse says why under its field as it is typed, and nothing is sent", async ({
  page,
  api,
}) => {
  const model = await answer(
    api.models.$post({ json: modelInput({ profile: { minMemoryGB: 8, cpuCores: 2 } }) }),
  );
  const patches = watchRequests(page, "PATCH", `/api/v1/models/${encodeURIComponent(model.name)}`);
  const card = await openModelCard(page, model.name);
  const memory = card.getByTestId("field-memoryGB");
  const replicas = card.getByTestId("field-replicas");
  const save = card.getByTestId("model-save");

  await memory.getByLabel("Memory (GB)", { exact: true }).fill("-5");
  await card.getByLabel("Mode", { exact: true }).selectOption("always");
  await replicas.getByLabel("Replicas", { exact: true }).fill("2.5");

  await expect(memory.getByTestId("field-error")).toHaveText("a whole number, 0 or more");
  await expect(replicas.getByTestId("field-error")).toHaveText("a whole number, 0 or more");
  // Each message is announced with its field, not only painted under it.
  await expect(memory.getByLabel("Memory (GB)", { exact: true })).toHaveAttribute("aria-invalid", "true");
  await expect(memory.getByLabel("Memory (GB)", { exact: true })).toHaveAccessibleDescription(
    /a whole number, 0 or more/,
  );
  await expect(card.getByTestId("field-cpuCores").getByTestId("field-error")).toHaveCount(0);
  await expect(save).toBeDisabled();
  await replicas.getByLabel("Replicas", { exact: true }).press("Enter");

  // Put right, the messages go and the edit saves.
  await memory.getByLabel("Memory (GB)", { exact: true }).fill("12");
  await expect(memory.getByTestId("field-error")).toHaveCount(0);
  await expect(save).toBeDisabled();
  await replicas.getByLabel("Replicas", { exact: true }).fill("1");
  await expect(replicas.getByTestId("field-error")).toHaveCount(0);
  expect(patches).toHaveLength(0);
  const sent = page.waitForRequest(isPatchOf(model.name));
  await save.click();
  expect((await sent).postDataJSON()).toEqual({ memoryGB: 12, mode: "always", replicas: 1 });
  await expect(card.getByTestId("model-saved")).toHaveText("Saved");
});

test("a model declared in the configuration file is read-only on its card, and says why", async ({
  page,
  api,
}) => {
  const card = await openModelCard(page, "declared-embed");
  await expect(card.getByTestId("model-readonly")).toContainText("Declared in llmgw.yaml; edit it there");
  for (const label of ["Class", "Owner", "Memory (GB)", "Cores", "GPUs", "Mode", "Replicas"])
    await expect(card.getByLabel(label, { exact: true })).toBeDisabled();
  await expect(card.getByTestId("model-save")).toHaveCount(0);

  // The API agrees: the card is not merely hiding a button.
  const param = { name: segment("declared-embed") };
  const declared = await answer(api.models[":name"].$get({ param }));
  await expect(
    answer(
      api.models[":name"].$patch(
        { param, json: { class: "batch" } },
        { headers: { "If-Match": `"${declared.version}"` } },
      ),
    ),
  ).rejects.toMatchObject({ status: 409, code: "declared_in_config" });
});
