import { answer } from "@llmgw/client";
import { expect } from "@playwright/test";
import { modelInput, openModelCard, test, uniqueName } from "./fixtures";

test("a model of a GPU and a CPU profile shows its replicas per profile on its card, live", async ({
  page,
  api,
}) => {
  // Its own label, so no other test's model is counted on this node.
  const pool = uniqueName("pool");
  const node = uniqueName("e2e-node");
  const input = modelInput();
  const model = await answer(
    api.models.$post({
      json: {
        ...input,
        profiles: [
          {
            name: "cpu",
            engine: "llamacpp",
            priority: 100,
            minMemoryGB: 8,
            cpuCores: 2,
            nodeSelector: { pool },
          },
          {
            name: "gpu",
            engine: "vllm",
            priority: 200,
            minMemoryGB: 8,
            cpuCores: 2,
            gpus: 1,
            nodeSelector: { pool },
          },
        ],
      },
    }),
  );

  const card = await openModelCard(page, model.name);
  const perProfile = card.getByTestId("profile-replicas");
  // Highest priority first, as placement tries them.
  await expect(perProfile.getByRole("listitem")).toHaveText([
    "gpu (vllm, priority 200): 0 replicas, 0 ready",
    "cpu (llamacpp, priority 100): 0 replicas, 0 ready",
  ]);

  const beat = {
    name: node,
    memoryGB: 64,
    cpuCount: 16,
    gpuTotal: 1,
    engines: ["vllm", "llamacpp"],
    labels: { pool },
  };
  await answer(
    api.agents.heartbeat.$post({
      json: {
        node: beat,
        replicas: [
          { id: `${node}-g1`, model: model.name, profile: "gpu", state: "ready" },
          { id: `${node}-c1`, model: model.name, profile: "cpu", state: "ready" },
          { id: `${node}-c2`, model: model.name, profile: "cpu", state: "starting" },
        ],
      },
    }),
  );

  await expect(perProfile.getByTestId("profile-gpu")).toHaveText(
    "gpu (vllm, priority 200): 1 replica, 1 ready",
  );
  await expect(perProfile.getByTestId("profile-cpu")).toHaveText(
    "cpu (llamacpp, priority 100): 2 replicas, 1 ready",
  );
});

test("a model of one profile shows no per-profile list", async ({ page, api }) => {
  const model = await answer(api.models.$post({ json: modelInput() }));
  const card = await openModelCard(page, model.name);
  await expect(card.getByTestId("model-replicas").or(card.getByText("No replicas."))).toBeVisible();
  await expect(card.getByTestId("profile-replicas")).toHaveCount(0);
});
